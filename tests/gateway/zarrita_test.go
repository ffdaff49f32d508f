package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/zarrgw/zarrgw/tests/support/fixtures"
)

// interopJS holds zarrita.js and the scripts that drive it (installed by
// scripts/setup.sh).
const interopJS = "../interop/js"

// requireNode returns node, failing (never skipping) when it or zarrita.js
// is missing.
func requireNode(t *testing.T) string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatal("node is not installed (needed to run zarrita.js): install Node.js, then run `bash scripts/setup.sh`")
	}
	if _, err := os.Stat(filepath.Join(interopJS, "node_modules/zarrita/package.json")); err != nil {
		t.Fatalf("zarrita.js is not installed (%v): run `bash scripts/setup.sh` from the repository root", err)
	}
	return node
}

// runJSON runs a client script with a JSON manifest and decodes what it
// prints.
func runJSON(t *testing.T, name string, args []string, manifest, out any) {
	t.Helper()
	mf := filepath.Join(t.TempDir(), "manifest.json")
	b, _ := json.Marshal(manifest)
	if err := os.WriteFile(mf, b, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, append(args, mf)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %v: %v\nstderr:\n%s", name, args, err, stderr.String())
	}
	if err := json.Unmarshal(stdout.Bytes(), out); err != nil {
		t.Fatalf("%s %v: output is not JSON: %v\n%.2000s\nstderr:\n%s", name, args, err, stdout.String(), stderr.String())
	}
}

type jsResult struct {
	Path            string `json:"path"`
	Local           string `json:"local"`
	HTTP            string `json:"http"`
	HTTPSuffix      string `json:"http_suffix"`
	LocalError      string `json:"local_error"`
	HTTPError       string `json:"http_error"`
	HTTPSuffixError string `json:"http_suffix_error"`
	Count           int    `json:"count"`
}

// zarrita.js reads every fixture it can decode from disk exactly the same
// through the gateway (v2, v3, sharded arrays read with ranges and
// suffix ranges), and the arrays zarrgw wrote.
func TestZarritaReadsThroughGateway(t *testing.T) {
	node := requireNode(t)
	fx := fixtures.Dir(t)
	written := writeArrays(t)
	s := startServer(t, fmt.Sprintf(`
store "fs" "fixtures" {
  root = %q
}
store "fs" "written" {
  root = %q
}
dataset "fixtures" {
  store     = store.fs.fixtures
  read_only = true
}
dataset "written" {
  store     = store.fs.written
  read_only = true
}
`, fx, written.dir))

	exp, err := fixtures.Load(fx)
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for p := range exp.Arrays {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	check := func(name, root, url string, paths []string, mustDecode bool) {
		var out struct{ Results []jsResult }
		runJSON(t, node, []string{filepath.Join(interopJS, "read_http.mjs")}, map[string]any{"root": root, "url": url, "arrays": paths}, &out)
		exact, undecodable := 0, 0
		for _, r := range out.Results {
			switch {
			case r.LocalError != "" && mustDecode:
				t.Errorf("%s %s: zarrita cannot read it from disk: %s", name, r.Path, r.LocalError)
			case r.LocalError != "":
				undecodable++
			case r.HTTPError != "" || r.HTTPSuffixError != "":
				t.Errorf("%s %s: read from disk, but not through the gateway: %s %s", name, r.Path, r.HTTPError, r.HTTPSuffixError)
			case r.HTTP != r.Local || r.HTTPSuffix != r.Local:
				t.Errorf("%s %s: %d elements differ through the gateway", name, r.Path, r.Count)
			default:
				exact++
			}
		}
		fmt.Printf("gateway zarrita %s: %d arrays read exactly through the gateway, %d failed, %d not decodable by zarrita from disk either\n",
			name, exact, len(out.Results)-exact-undecodable, undecodable)
		if exact == 0 {
			t.Errorf("%s: no array was read through the gateway", name)
		}
	}
	check("fixtures", fx, s.url+"/d/fixtures/", paths, false)
	check("zarrgw-written", written.dir, s.url+"/d/written/", written.arrays, true)
}
