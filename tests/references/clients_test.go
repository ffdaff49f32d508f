package references

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/zarrgw/zarrgw/tests/support/servers"
)

// fsspec's own reader (ReferenceFileSystem, its HTTPFileSystem fetching
// byte ranges on aiohttp, zarr-python 2 decoding) reads the reference set
// and its targets from the web server where zarrgw reads them, and gets
// what netCDF4-python reads from the files: the oracle that
// TestRemoteTargets' expectations are held against holds for remote
// targets too, so a disagreement there is zarrgw's. (Over S3 fsspec needs
// s3fs, which Debian's python3 here lacks.)
func TestFsspecOracleOverHTTP(t *testing.T) {
	if out, err := exec.Command(python, "-c", "import aiohttp, fsspec.implementations.http").CombinedOutput(); err != nil {
		servers.Unavailable(t, "fsspec's HTTP filesystem needs Debian's python3-aiohttp (%v: %s)", err, out)
	}
	dir, want := world(t)
	files := t.TempDir()
	copyDir(t, filepath.Join(dir, "nc"), filepath.Join(files, "nc"))
	srv := servers.ServeDir(t, files, servers.HTTPOptions{})
	script := filepath.Join(repoRoot(), "tests", "references", "testdata", "mkrefs.py")
	run(t, dir, python, script, "refs", "nc", srv.URL+"/nc/", filepath.Join(files, "refs"))
	var got expected
	out := run(t, dir, python, script, "oracle-remote", srv.URL+"/refs/joined-v1.json", "http")
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("oracle output: %v\n%.200s", err, out)
	}
	for name, w := range want {
		if got[name].Hex != w.Hex {
			t.Errorf("%s through fsspec over HTTP: %.40s…, want %.40s…", name, got[name].Hex, w.Hex)
		}
	}
	if len(got) != len(want) {
		t.Errorf("fsspec read %d arrays, netCDF4-python %d", len(got), len(want))
	}
}
