package references

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zarrgw/zarrgw/tests/support/binary"
	"github.com/zarrgw/zarrgw/tests/support/servers"
)

const python = "/usr/bin/python3"

// run runs a program and returns its standard output, failing the test
// with its standard error.
func run(t *testing.T, dir, name string, args ...string) []byte {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %v: %v\n%s", filepath.Base(name), args, err, stderr.String())
	}
	return out
}

// expected maps array names to the hex of their values as netCDF4-python
// reads them.
type expected map[string]struct {
	Hex   string
	Shape []int
}

// world is a directory holding NetCDF4 files (nc/), reference sets over
// them by local path (refs/) and a configuration over each set, which
// allows the sets' targets in nc/ (beside refs/, not below it).
func world(t *testing.T) (string, expected) {
	t.Helper()
	if out, err := exec.Command(python, "-c", "import netCDF4, h5py, numpy").CombinedOutput(); err != nil {
		servers.Unavailable(t, "Debian's python3-netcdf4 and python3-h5py are needed (%v: %s): run scripts/setup.sh", err, out)
	}
	dir := t.TempDir()
	script := filepath.Join(repoRoot(), "tests", "references", "testdata", "mkrefs.py")
	run(t, dir, python, script, "files", "nc")
	run(t, dir, python, script, "refs", "nc", filepath.Join(dir, "nc")+"/", "refs")
	var want expected
	raw, err := os.ReadFile(filepath.Join(dir, "refs", "expected.json"))
	if err != nil || json.Unmarshal(raw, &want) != nil || len(want) < 5 {
		t.Fatalf("expected values: %v", err)
	}
	for _, set := range []string{"joined-v0", "joined-v1"} {
		write(t, filepath.Join(dir, set+".hcl"), `store "references" "nc" {
  references    = "./refs/`+set+`.json"
  allow_targets = ["./nc/"]
}

dataset "nc" {
  store     = store.references.nc
  read_only = true
}
`)
	}
	return dir, want
}

// zarrgw cat reads every variable of the joined files, through both JSON
// forms, exactly as netCDF4-python reads it.
func TestCatReadsAsNetCDF4(t *testing.T) {
	dir, want := world(t)
	for _, set := range []string{"joined-v0", "joined-v1"} {
		for name, w := range want {
			got := hex.EncodeToString(run(t, dir, zarrgwBin, "cat", "-c", set+".hcl", "nc", "--path", name, "--format", "raw"))
			if got != w.Hex {
				t.Errorf("%s %s: %.40s…, netCDF4-python reads %.40s…", set, name, got, w.Hex)
			}
		}
	}
}

// zarr-python 2 over the gateway's key API, and the array API, read every
// variable as netCDF4-python does.
func TestGatewayServesReferences(t *testing.T) {
	dir, want := world(t)
	gw := binary.Serve(t, zarrgwBin, filepath.Join(dir, "joined-v1.hcl"))
	script := filepath.Join(repoRoot(), "tests", "plugins", "testdata", "numcodecs_interop.py")
	var overHTTP map[string]string
	if err := json.Unmarshal(run(t, dir, python, script, "read", gw.URL+"/d/nc/"), &overHTTP); err != nil {
		t.Fatal(err)
	}
	for name, w := range want {
		if overHTTP[name] != w.Hex {
			t.Errorf("zarr-python over the key API reads %s as %.40s…, want %.40s…", name, overHTTP[name], w.Hex)
		}
		resp, err := http.Get(gw.URL + "/d/nc/" + name + "?format=raw")
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if got := hex.EncodeToString(body); resp.StatusCode != http.StatusOK || got != w.Hex {
			t.Errorf("array API %s: %d %.40s…, want %.40s…", name, resp.StatusCode, got, w.Hex)
		}
	}
}

// A target file that is missing, or shorter than its references say, is
// an error naming the key and the target; nothing is printed as values.
func TestMissingAndShortTargets(t *testing.T) {
	dir, _ := world(t)
	nc := filepath.Join(dir, "nc")
	catFails := func(target, what string) {
		t.Helper()
		out, msg, err := cat(dir, nil, "joined-v1.hcl", "nc", "temp")
		if err == nil || len(out) > 0 || !strings.Contains(msg, `key "temp/`) || !strings.Contains(msg, target) || !strings.Contains(msg, what) {
			t.Errorf("cat with %s damaged: exit %v, %d bytes out, stderr:\n%s", target, err, len(out), msg)
		}
	}
	if err := os.Rename(filepath.Join(nc, "t1.nc"), filepath.Join(nc, "gone.nc")); err != nil {
		t.Fatal(err)
	}
	catFails("t1.nc", "is missing")
	if err := os.Rename(filepath.Join(nc, "gone.nc"), filepath.Join(nc, "t1.nc")); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(filepath.Join(nc, "t2.nc"), 1000); err != nil {
		t.Fatal(err)
	}
	catFails("t2.nc", "past its end")
}
