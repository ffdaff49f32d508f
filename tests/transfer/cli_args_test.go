package transfer

import (
	"errors"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Every argument, the source and every array's conversion are checked
// before anything is written: a mistake found in any of them leaves no
// destination, not even its directory, and an existing destination as
// it was.
func TestCLIArgumentErrorsLeaveNoDestination(t *testing.T) {
	src := t.TempDir()
	writeV2Source(t, src)
	missing := filepath.Join(t.TempDir(), "missing.zarr")
	cases := []struct {
		args []string
		say  string // in the error
	}{
		{[]string{"--chunks-per-shard", "8"}, "--to-format 3"}, // v2 arrays: found reading the source
		{[]string{"--to-format", "4"}, "give 2 or 3"},
		{[]string{"--to-format", "3", "--codecs", `[{"name":"nosuch"}]`}, "nosuch"},
		{[]string{"--to-format", "3", "--codecs", `[{"name":`}, "--codecs"},
		{[]string{"--to-format", "3", "--shard", "20,20,20"}, "dimensions"},
		{[]string{"--to-format", "3", "--shard", "15,15", "--path", "g/a"}, "do not divide"},
		{[]string{"--to-format", "3", "--shard", "20,20", "--chunks-per-shard", "2"}, "give one"},
		{[]string{"--chunks", "0,4"}, "positive"},
		{[]string{"--path", "nope"}, "nope"},
		{[]string{"--path", "g/a/.."}, ".."},
		{[]string{"--overwrite", "--merge"}, "give one"},
		{[]string{"--jobs", "-1"}, "--jobs"},
		{[]string{"--consolidate", "--path", "b"}, ""}, // valid: an array copied alone is consolidated at the root above it
	}
	for _, c := range cases {
		for _, dst := range []string{filepath.Join(t.TempDir(), "y.zarr"), t.TempDir()} {
			before := tree(t, dst)
			args := append(append([]string{"cp", "-q"}, c.args...), src, dst)
			out, errOut, code := zarrgwIn(t, t.TempDir(), args...)
			if c.say == "" {
				if code != 0 {
					t.Errorf("cp %v: exit %d\n%s%s", c.args, code, out, errOut)
				}
				continue
			}
			if code != 1 || !strings.Contains(errOut, c.say) {
				t.Errorf("cp %v: exit %d, want 1 and an error saying %q\n%s%s", c.args, code, c.say, out, errOut)
			}
			if after := tree(t, dst); !maps.Equal(before, after) {
				t.Errorf("cp %v: the destination changed: %d entries, %d before", c.args, len(after), len(before))
			}
		}
	}
	// a source that is not there, and a copy into itself
	for _, args := range [][]string{{missing, filepath.Join(t.TempDir(), "z.zarr")}, {src, src}, {src, filepath.Join(src, "inside")}} {
		out, errOut, code := zarrgwIn(t, t.TempDir(), append([]string{"cp", "-q"}, args...)...)
		if code != 1 || len(lines(errOut)) != 1 {
			t.Errorf("cp %v: exit %d, want 1 and one error line\n%s%s", args, code, out, errOut)
		}
		if _, err := os.Stat(args[1]); args[1] != src && !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("cp %v made its destination: %v", args, err)
		}
	}
}
