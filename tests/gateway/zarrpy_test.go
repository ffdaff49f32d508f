package gateway

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/zarrgw/zarrgw/tests/support/fixtures"
)

// python is Debian's interpreter, which sees the apt-installed
// python3-zarr, python3-fsspec and python3-aiohttp.
const python = "/usr/bin/python3"

type pyResult struct {
	Path       string `json:"path"`
	Equal      *bool  `json:"equal"`
	LocalError string `json:"local_error"`
	HTTPError  string `json:"http_error"`
}

// Debian's python3-zarr reads every v2 fixture it can read from disk the
// same through the gateway (fsspec's HTTP filesystem), and opens a v2
// group through consolidated metadata the gateway builds on the fly.
func TestZarrPythonReadsThroughGateway(t *testing.T) {
	if _, err := os.Stat(python); err != nil {
		t.Fatalf("%s is missing: run `bash scripts/setup.sh` (installs python3-zarr, python3-fsspec, python3-aiohttp)", python)
	}
	fx := fixtures.Dir(t)
	const consPrefix = "zarr-python-v2/fixture" // a group stored without .zmetadata
	if _, err := os.Stat(filepath.Join(fx, consPrefix, ".zmetadata")); err == nil {
		t.Fatalf("%s has a .zmetadata of its own: pick a group without one", consPrefix)
	}
	s := startServer(t, fmt.Sprintf(`
store "fs" "fixtures" {
  root = %q
}
dataset "fixtures" {
  store     = store.fs.fixtures
  read_only = true
}
dataset "cons" {
  store        = store.fs.fixtures
  prefix       = %q
  read_only    = true
  consolidated = true
}
`, fx, consPrefix))
	if code, body := s.get(t, "/d/cons/.zmetadata"); code != 200 || !strings.Contains(body, `"zarr_consolidated_format": 1`) {
		t.Fatalf(".zmetadata built on the fly: %d %.300s", code, body)
	}
	exp, err := fixtures.Load(fx)
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for p, a := range exp.Arrays {
		if a.ZarrFormat == 2 {
			paths = append(paths, p)
		}
	}
	sort.Strings(paths)
	var out struct {
		Results           []pyResult
		Consolidated      []pyResult
		ConsolidatedError string `json:"consolidated_error"`
	}
	manifest := map[string]any{"root": fx, "url": s.url + "/d/fixtures/", "arrays": paths,
		"cons_root": filepath.Join(fx, consPrefix), "cons_url": s.url + "/d/cons/"}
	runJSON(t, python, []string{"py/read_http.py"}, manifest, &out)
	exact, undecodable := tallyPy(t, "fixtures", out.Results)
	fmt.Printf("gateway zarr-python fixtures: %d v2 arrays read exactly through the gateway, %d failed, %d not readable by python3-zarr from disk either\n",
		exact, len(out.Results)-exact-undecodable, undecodable)
	if out.ConsolidatedError != "" {
		t.Fatalf("open_consolidated through the gateway: %s", out.ConsolidatedError)
	}
	consExact, _ := tallyPy(t, "consolidated", out.Consolidated)
	fmt.Printf("gateway zarr-python consolidated: %d arrays of %s read exactly through consolidated metadata built on the fly\n", consExact, consPrefix)
	if exact == 0 || consExact == 0 {
		t.Errorf("nothing read through the gateway (%d arrays, %d through consolidated metadata)", exact, consExact)
	}
}

func tallyPy(t *testing.T, name string, results []pyResult) (exact, undecodable int) {
	t.Helper()
	for _, r := range results {
		switch {
		case r.LocalError != "":
			undecodable++
		case r.HTTPError != "":
			t.Errorf("%s %s: read from disk, but not through the gateway: %s", name, r.Path, r.HTTPError)
		case r.Equal == nil || !*r.Equal:
			t.Errorf("%s %s: differs through the gateway", name, r.Path)
		default:
			exact++
		}
	}
	return exact, undecodable
}
