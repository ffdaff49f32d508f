// Package references tests the references store as users meet it: NetCDF4
// files and kerchunk reference sets over them (testdata/mkrefs.py, on
// Debian's netCDF4-python and h5py), a configuration's
// store "references" block, the zarrgw command and the gateway.
package references

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/zarrgw/zarrgw/tests/support/binary"
)

var zarrgwBin string

func TestMain(m *testing.M) { binary.Main(m, &zarrgwBin) }

func repoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// cat runs `zarrgw cat -c config dataset --path path --format raw` in dir
// with env (nil: the test's) and returns its output, its standard error
// and how it ended.
func cat(dir string, env []string, config, dataset, path string) (out []byte, stderr string, err error) {
	cmd := exec.Command(zarrgwBin, "cat", "-c", config, dataset, "--path", path, "--format", "raw")
	cmd.Dir, cmd.Env = dir, env
	var errBuf bytes.Buffer
	cmd.Stderr = &errBuf
	out, err = cmd.Output()
	return out, errBuf.String(), err
}
