package transfer

import (
	"bytes"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/zarrgw/zarrgw/core/array"
	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/host/registry"
	"github.com/zarrgw/zarrgw/plugins/stores/fs"
	"github.com/zarrgw/zarrgw/tests/conformance"
	"github.com/zarrgw/zarrgw/tests/support/fixtures"
)

// Every fixture copied as it is arrives byte for byte.
func TestCopyAsItIs(t *testing.T) {
	fx := fixtures.Dir(t)
	dst := t.TempDir()
	out, errOut, code := cp(t, t.TempDir(), fx, dst)
	if code != 0 {
		t.Fatalf("cp: exit %d\n%s%s", code, out, errOut)
	}
	want, got := files(t, fx), files(t, dst)
	for name, b := range want {
		if !bytes.Equal(got[name], b) {
			t.Errorf("%s differs after the copy", name)
		}
	}
	if len(got) != len(want) {
		t.Errorf("%d files copied, %d in the fixtures", len(got), len(want))
	}
	fmt.Printf("cp as it is: %d files byte-identical\n", len(want))
}

// noV3 is cp's message for an array whose data type Zarr v3 cannot hold.
var noV3 = regexp.MustCompile(`array /(\S+): data type \S+ \([a-z-]+\) has no Zarr v3 form`)

// Rewritten as v3, and as sharded v3, every fixture array reads back with
// the values expected.json gives, except those whose data type has no v3
// form, which cp names and leaves out.
func TestCopyToV3(t *testing.T) {
	fx := fixtures.Dir(t)
	roots := hierarchyRoots(t, fx)
	for _, variant := range []struct {
		name string
		args []string
	}{
		{"v3", []string{"--to-format", "3"}},
		{"sharded v3", []string{"--to-format", "3", "--chunks-per-shard", "2"}},
	} {
		t.Run(variant.name, func(t *testing.T) {
			dst := t.TempDir()
			unconverted := map[string]bool{}
			for _, root := range roots {
				args := append(append([]string{"-q"}, variant.args...), "--path", root, fx, dst)
				_, errOut, code := cp(t, t.TempDir(), args...)
				for _, m := range noV3.FindAllStringSubmatch(errOut, -1) {
					unconverted[m[1]] = true
				}
				if code != 0 && len(unconverted) == 0 {
					t.Fatalf("cp %s: exit %d\n%s", root, code, errOut)
				}
				for _, l := range lines(errOut) {
					if l != "" && !noV3.MatchString(l) && !strings.HasPrefix(l, "zarrgw: copy incomplete:") {
						t.Errorf("cp %s: %s", root, l)
					}
				}
			}
			open := func(dir string) (store.Store, error) { return fs.New(dir) }
			c := conformance.RunCopy(t, dst, open, array.Options{Codecs: registry.Codecs(), Transformers: registry.Transformers()},
				func(name string) bool { return unconverted[name] })
			fmt.Printf("cp to %s: %d arrays read back exactly, %d failed, %d left out (a data type with no v3 form)\n",
				variant.name, c.Passed, c.Failed, len(unconverted))
			if c.Passed < 90 {
				t.Errorf("only %d arrays converted", c.Passed)
			}
			checkZarrita(t, fx, dst, unconverted)
		})
	}
}

// TestDryRun says what it would copy and writes nothing.
func TestDryRun(t *testing.T) {
	fx := fixtures.Dir(t)
	dst := filepath.Join(t.TempDir(), "nothing")
	out, errOut, code := cp(t, t.TempDir(), "--dry-run", "-q", "--path", "zarrita-js/v2/data.zarr", fx, dst)
	if code != 0 || !strings.Contains(out, "dry run, nothing written") {
		t.Fatalf("dry run: exit %d\n%s%s", code, out, errOut)
	}
	if got := files(t, filepath.Dir(dst)); len(got) != 0 {
		t.Fatalf("a dry run wrote %d files", len(got))
	}
}
