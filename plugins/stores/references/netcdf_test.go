package references_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/plugins/stores/fsstore"
	"github.com/zarrgw/zarrgw/plugins/stores/references"
	"github.com/zarrgw/zarrgw/tests/support/servers"
)

const python = "/usr/bin/python3"

// mkrefs runs tests/references/testdata/mkrefs.py with args.
func mkrefs(t *testing.T, args ...string) []byte {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	script := filepath.Join(filepath.Dir(file), "..", "..", "..", "tests", "references", "testdata", "mkrefs.py")
	out, err := exec.Command(python, append([]string{script}, args...)...).Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		t.Fatalf("mkrefs.py %v: %v\n%s", args, err, stderr)
	}
	return out
}

// localFiles opens absolute directory paths as fs stores.
type localFiles struct{}

func (localFiles) OpenURL(_ context.Context, url string) (store.Store, error) {
	if !filepath.IsAbs(url) {
		return nil, fmt.Errorf("%s is not a local path", url)
	}
	return fsstore.New(url)
}

// netcdfWorld makes, in a directory of the test's, NetCDF4 files (nc/,
// mkrefs.py files) and the JSON reference sets over them with the values
// they must read as (refs/), and returns that directory and refs/.
func netcdfWorld(t *testing.T) (dir, refs string) {
	t.Helper()
	if out, err := exec.Command(python, "-c", "import netCDF4, h5py, numpy").CombinedOutput(); err != nil {
		servers.Unavailable(t, "Debian's python3-netcdf4 and python3-h5py are needed (%v: %s): run scripts/setup.sh", err, out)
	}
	dir = t.TempDir()
	files := filepath.Join(dir, "nc")
	refs = filepath.Join(dir, "refs")
	mkrefs(t, "files", files)
	mkrefs(t, "refs", files, files+string(filepath.Separator), refs)
	return dir, refs
}

// NetCDF4 files written by netCDF4-python, referenced from h5py's chunk
// index in kerchunk's JSON forms (version 0 for one file and for three
// joined along time, version 1 with templates and gen), read through the
// references store: every variable equals what netCDF4-python reads
// (fill values as stored, scale not applied), the big-endian, the
// contiguous and the gen-made variables and a chunk the file lacks among
// them.
func TestNetCDFReferencesReadAsNetCDF4(t *testing.T) {
	dir, refs := netcdfWorld(t)
	for _, tc := range []struct{ set, expected string }{
		{"single-v0.json", "expected-single.json"},
		{"joined-v0.json", "expected.json"},
		{"joined-v1.json", "expected.json"},
	} {
		t.Run(strings.TrimSuffix(tc.set, ".json"), func(t *testing.T) {
			doc, err := os.ReadFile(filepath.Join(refs, tc.set))
			if err != nil {
				t.Fatal(err)
			}
			set, err := references.ParseJSON(doc)
			if err != nil {
				t.Fatal(err)
			}
			s := references.New(set, localFiles{}, dir) // the world's: its nc/ holds the targets
			defer s.Close()
			readsAsNetCDF4(t, s, filepath.Join(refs, tc.expected))
		})
	}
}
