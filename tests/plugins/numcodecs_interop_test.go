package plugins

import (
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/zarrgw/zarrgw/tests/support/binary"
	"github.com/zarrgw/zarrgw/tests/support/servers"
)

// interopScript is the zarr-python side of TestNumcodecsInterop.
func interopScript() string {
	return filepath.Join(repoRoot(), "tests", "plugins", "testdata", "numcodecs_interop.py")
}

// runInterop runs the script with args and decodes the values it prints
// (array name -> hex of its little-endian bytes).
func runInterop(t *testing.T, args ...string) map[string]string {
	t.Helper()
	cmd := exec.Command(debianPython, append([]string{interopScript()}, args...)...)
	out, err := cmd.Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		t.Fatalf("zarr-python %v: %v\n%s", args, err, stderr)
	}
	var vals map[string]string
	if err := json.Unmarshal(out, &vals); err != nil {
		t.Fatalf("zarr-python %v printed %.300q: %v", args, out, err)
	}
	return vals
}

// zarrgwIn runs zarrgw with args in dir (stdin from stdin, if not "")
// and returns its standard output.
func zarrgwIn(t *testing.T, dir, stdin string, args ...string) []byte {
	t.Helper()
	cmd := exec.Command(zarrgwBin, args...)
	cmd.Dir = dir
	if stdin != "" {
		f, err := os.Open(stdin)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		cmd.Stdin = f
	}
	out, err := cmd.Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		t.Fatalf("zarrgw %v: %v\n%s", args, err, stderr)
	}
	return out
}

// Arrays Debian's zarr-python 2.13 wrote with codecs zarrgw does not
// bundle (ZFPY reversible and lossy, PackBits, Categorize, LZMA) read
// through the numcodecs bridge exactly as zarr-python decodes them: with
// `zarrgw cat`, and through `zarrgw serve`'s array API. zarrgw writes ZFPY
// arrays (values into arrays zarr-python made) that zarr-python reads back
// exactly as its own writing and reading of the same values; and
// zarr-python reads them all over HTTP from the gateway's key API. The
// plugin runs with AutoMTLS, as every plugin does.
func TestNumcodecsInterop(t *testing.T) {
	needPythonSDK(t)
	if out, err := exec.Command(debianPython, "-c", "import zarr, numcodecs, zfpy").CombinedOutput(); err != nil {
		needPythonPackages(t, "python3-zarr, python3-numcodecs, python3-zfpy", err, out)
	}
	dir := t.TempDir()
	want := runInterop(t, "make", dir)
	config := `plugin "zarrgw.dev/python/numcodecs" {
  path = "` + numcodecsBridge() + `"
}
store "fs" "local" {
  root = "."
}
dataset "nc" {
  store = store.fs.local
}
`
	if err := os.WriteFile(filepath.Join(dir, "zarrgw.hcl"), []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	zarrgwIn(t, dir, "", "plugins", "lock", "-c", "zarrgw.hcl")

	written := []string{"w_zfpy", "w_zfpy_lossy"}
	read := []string{"zfpy", "zfpy_lossy", "packbits", "categorize", "lzma"}
	for _, name := range read {
		got := hex.EncodeToString(zarrgwIn(t, dir, "", "cat", "-c", "zarrgw.hcl", "nc", "--path", name, "--format", "raw"))
		if got != want[name] {
			t.Errorf("zarrgw cat %s: %s, zarr-python decodes %s", name, abbrev(got), abbrev(want[name]))
		}
	}
	for _, name := range written {
		zarrgwIn(t, dir, filepath.Join(dir, "values.f64"), "write", "-c", "zarrgw.hcl", "nc", "--path", name, "--format", "raw")
	}
	fromDisk := runInterop(t, "read", dir)
	for _, name := range written {
		if fromDisk[name] != want[name] {
			t.Errorf("zarr-python reads zarrgw's %s as %s, its own writing of the values as %s", name, abbrev(fromDisk[name]), abbrev(want[name]))
		}
	}

	gw := binary.Serve(t, zarrgwBin, filepath.Join(dir, "zarrgw.hcl"))
	overHTTP := runInterop(t, "read", gw.URL+"/d/nc/")
	for _, name := range append(read, written...) {
		if overHTTP[name] != want[name] {
			t.Errorf("zarr-python over the key API reads %s as %s, want %s", name, abbrev(overHTTP[name]), abbrev(want[name]))
		}
		resp, err := http.Get(gw.URL + "/d/nc/" + name + "?format=raw")
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if got := hex.EncodeToString(body); resp.StatusCode != http.StatusOK || got != want[name] {
			t.Errorf("array API %s: %d %s, want %s", name, resp.StatusCode, abbrev(got), abbrev(want[name]))
		}
	}
	names := make([]string, 0, len(overHTTP))
	for n := range overHTTP {
		names = append(names, n)
	}
	sort.Strings(names)
	if strings.Join(names, ",") != "categorize,lzma,packbits,w_zfpy,w_zfpy_lossy,zfpy,zfpy_lossy" {
		t.Errorf("zarr-python over HTTP found arrays %v", names)
	}
}

// needPythonPackages reports Debian packages Python lacks: a failure
// under CI, a loud skip elsewhere.
func needPythonPackages(t *testing.T, pkgs string, err error, out []byte) {
	t.Helper()
	servers.Unavailable(t, "Debian's Python lacks %s (%v: %s): run scripts/setup.sh", pkgs, err, out)
}

func abbrev(s string) string {
	if len(s) > 48 {
		return s[:48] + "…"
	}
	return s
}
