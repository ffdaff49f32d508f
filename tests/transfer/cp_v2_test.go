package transfer

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zarrgw/zarrgw/core/array"
	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/host/runtime/registry"
	"github.com/zarrgw/zarrgw/plugins/stores/fsstore"
	"github.com/zarrgw/zarrgw/tests/conformance"
	"github.com/zarrgw/zarrgw/tests/support/fixtures"
)

// Every v2 fixture hierarchy taken to v3 and back with cp --to-format 3
// then --to-format 2 reads back exactly, as v2 (.zarray, no zarr.json).
func TestCopyV2ToV3AndBack(t *testing.T) {
	fx := fixtures.Dir(t)
	exp, err := fixtures.Load(fx)
	if err != nil {
		t.Fatal(err)
	}
	var v2Roots []string
	for _, root := range hierarchyRoots(t, fx) {
		if isV2(filepath.Join(fx, root)) {
			v2Roots = append(v2Roots, root)
		}
	}
	v3, back := t.TempDir(), t.TempDir()
	for _, root := range v2Roots {
		for _, step := range []struct {
			src, dst, format string
		}{{fx, v3, "3"}, {v3, back, "2"}} {
			if _, errOut, code := cp(t, t.TempDir(), "-q", "--to-format", step.format, "--path", root, step.src, step.dst); code != 0 || errOut != "" {
				t.Fatalf("cp --to-format %s --path %s: exit %d\n%s", step.format, root, code, errOut)
			}
		}
	}
	inV2Root := func(name string) bool {
		for _, root := range v2Roots {
			if strings.HasPrefix(name, root+"/") || name == root {
				return true
			}
		}
		return false
	}
	want := 0
	for name := range exp.Arrays {
		if inV2Root(name) {
			want++
		}
	}
	open := func(dir string) (store.Store, error) { return fsstore.New(dir) }
	c := conformance.RunCopy(t, back, open, array.Options{Codecs: registry.Codecs()}, func(name string) bool { return !inV2Root(name) })
	fmt.Printf("cp v2 -> v3 -> v2: %d arrays of %d v2 hierarchies read back exactly, %d failed\n", c.Passed, len(v2Roots), c.Failed)
	if want == 0 || c.Passed != want {
		t.Errorf("%d of %d arrays read back exactly after v2 -> v3 -> v2", c.Passed, want)
	}
	err = filepath.WalkDir(back, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.Name() == "zarr.json" {
			t.Errorf("a v2 copy holds %s", p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// An array v2 cannot hold (sharded) is refused by name before anything
// is written.
func TestCopyToV2RefusesShards(t *testing.T) {
	fx := fixtures.Dir(t)
	const root = "zarrita-js/v3/data.zarr/1d.chunked.compressed.sharded.i2"
	if _, err := os.Stat(filepath.Join(fx, root, "zarr.json")); err != nil {
		t.Fatalf("fixture %s: %v", root, err)
	}
	dst := filepath.Join(t.TempDir(), "v2.zarr")
	_, errOut, code := cp(t, t.TempDir(), "-q", "--to-format", "2", filepath.Join(fx, root), dst)
	if code == 0 || !strings.Contains(errOut, "shard") {
		t.Fatalf("cp --to-format 2 of a sharded array: exit %d\n%s", code, errOut)
	}
	if _, err := os.Stat(dst); !os.IsNotExist(err) {
		t.Errorf("the refused copy left %s behind (%v)", dst, err)
	}
}

// isV2 reports whether a hierarchy's root is a v2 node.
func isV2(dir string) bool {
	for _, doc := range []string{".zgroup", ".zarray"} {
		if _, err := os.Stat(filepath.Join(dir, doc)); err == nil {
			return true
		}
	}
	return false
}
