// Package cloud tests the cloud stores (s3, azure, http) out of process,
// served by a plugin binary that TestMain builds, against real servers,
// and their behaviour under faults between store and server.
package cloud

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// pluginBin is testdata/cloudplugin, built by TestMain.
var pluginBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "zarrgw-cloud-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	pluginBin = filepath.Join(dir, "cloudplugin")
	code := 1
	cmd := exec.Command("go", "build", "-o", pluginBin, "./tests/cloud/testdata/cloudplugin")
	cmd.Dir = repoRoot()
	if out, err := cmd.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "go build cloudplugin: %v\n%s", err, out)
	} else {
		code = m.Run()
	}
	os.RemoveAll(dir)
	os.Exit(code)
}

// repoRoot is the module root, two levels above this file's directory.
func repoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}
