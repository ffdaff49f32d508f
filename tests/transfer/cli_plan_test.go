package transfer

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"testing"
)

// plan is the part of `cp --dry-run --json` the tests read, as its
// schema (cp --help) gives it.
type plan struct {
	Mode   string `json:"mode"`
	Target struct {
		State     string   `json:"state"`
		Ancestors []string `json:"created_groups_above"`
	} `json:"destination_state"`
	Arrays []struct {
		Path          string `json:"path"`
		Keys          int64  `json:"keys"`
		Bytes         *int64 `json:"bytes"`
		Before, After struct {
			Format     string            `json:"format"`
			DataType   string            `json:"data_type"`
			Shape      []int             `json:"shape"`
			ChunkShape []int             `json:"chunk_shape"`
			ShardShape []int             `json:"shard_shape"`
			Codecs     []json.RawMessage `json:"codecs"`
		}
	} `json:"arrays"`
	Groups []struct {
		Path string `json:"path"`
		Keys int64  `json:"keys"`
	} `json:"groups"`
	Totals struct {
		Arrays, Groups int
		Keys           int64
		Bytes          *int64
	} `json:"totals"`
}

// arrayDirs lists the arrays below dir by their metadata documents.
func arrayDirs(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, filepath.Dir(p))
		switch d.Name() {
		case ".zarray":
			out = append(out, rel)
		case "zarr.json":
			var doc struct {
				NodeType string `json:"node_type"`
			}
			if b, err := os.ReadFile(p); err == nil && json.Unmarshal(b, &doc) == nil && doc.NodeType == "array" {
				out = append(out, rel)
			}
		}
		return nil
	})
	sort.Strings(out)
	return out
}

// sizeBelow sums the sizes of the files below dir.
func sizeBelow(t *testing.T, dir string) int64 {
	t.Helper()
	var n int64
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if info, e := d.Info(); err == nil && e == nil && !d.IsDir() {
			n += info.Size()
		}
		return nil
	})
	return n
}

// `cp --dry-run --json` writes nothing and prints a plan that the real
// copy then follows: the arrays it writes, per array the keys below it
// and the stored bytes of the source below it, every key in all; the
// layout before and after (v2 -> v3, shards of 2x2 chunks for a
// rewrite). Into a directory that does not exist, below a --path, and
// into one holding an earlier run of the same copy.
func TestCLIDryRunPlanMatchesRun(t *testing.T) {
	src := t.TempDir()
	writeV2Source(t, src)
	cases := []struct {
		name string
		args []string
		mode string
	}{
		{"byte copy", nil, "copy"},
		{"rewrite to sharded v3", []string{"--to-format", "3", "--chunks-per-shard", "2"}, "rewrite"},
		{"a node, rechunked, consolidated", []string{"--to-format", "3", "--chunks", "20,15", "--path", "g/a", "--consolidate"}, "rewrite"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dst := filepath.Join(t.TempDir(), "out.zarr")
			args := append(append([]string{"cp", "-q"}, c.args...), src, dst)
			p := dryRun(t, args)
			if _, err := os.Stat(dst); !errors.Is(err, fs.ErrNotExist) {
				t.Fatalf("the dry run made the destination: %v", err)
			}
			if p.Mode != c.mode || p.Target.State != "new" {
				t.Errorf("mode %q, destination %q", p.Mode, p.Target.State)
			}
			if _, errOut, code := zarrgwIn(t, t.TempDir(), args...); code != 0 {
				t.Fatalf("cp: exit %d\n%s", code, errOut)
			}
			checkPlan(t, p, src, dst, c.mode)
			// the same copy again: the destination is its own, the arrays
			// the same (the groups above a --path exist by now)
			again := dryRun(t, args)
			if again.Target.State != "same_copy" || !reflect.DeepEqual(again.Arrays, p.Arrays) || len(again.Target.Ancestors) != 0 {
				t.Errorf("planned again over its own result: %q, arrays %+v (first %+v), groups made above %v",
					again.Target.State, again.Arrays, p.Arrays, again.Target.Ancestors)
			}
		})
	}
}

// dryRun runs cp --dry-run --json with args and parses its plan.
func dryRun(t *testing.T, args []string) plan {
	t.Helper()
	out, errOut, code := zarrgwIn(t, t.TempDir(), append([]string{args[0], "--dry-run", "--json"}, args[1:]...)...)
	if code != 0 {
		t.Fatalf("dry run: exit %d\n%s", code, errOut)
	}
	var p plan
	if err := json.Unmarshal([]byte(out), &p); err != nil {
		t.Fatalf("the dry run's output is not its JSON plan: %v\n%s", err, out)
	}
	return p
}

// checkPlan compares a plan with what the copy from src wrote into dst.
func checkPlan(t *testing.T, p plan, src, dst, mode string) {
	t.Helper()
	var paths []string
	for _, a := range p.Arrays {
		paths = append(paths, a.Path)
		written := int64(len(files(t, filepath.Join(dst, a.Path))))
		if a.Keys != written {
			t.Errorf("%s: the plan says %d keys, the copy wrote %d", a.Path, a.Keys, written)
		}
		if a.Bytes == nil || *a.Bytes != sizeBelow(t, filepath.Join(src, a.Path)) {
			t.Errorf("%s: the plan says %v bytes to read, the source holds %d", a.Path, a.Bytes, sizeBelow(t, filepath.Join(src, a.Path)))
		}
		b, f := a.Before, a.After
		if b.Format != "v2" || b.DataType != "int32" || len(b.Codecs) != 2 || b.ShardShape != nil {
			t.Errorf("%s before: %+v", a.Path, b)
		}
		wantFormat := map[string]string{"copy": "v2", "rewrite": "v3"}[mode]
		if f.Format != wantFormat || !reflect.DeepEqual(f.Shape, b.Shape) || len(f.Codecs) == 0 {
			t.Errorf("%s after: %+v", a.Path, f)
		}
		for i := range f.ShardShape {
			if f.ShardShape[i] != 2*f.ChunkShape[i] {
				t.Errorf("%s: shards %v of chunks %v, want 2 chunks per dimension", a.Path, f.ShardShape, f.ChunkShape)
			}
		}
	}
	if got := arrayDirs(t, dst); !reflect.DeepEqual(paths, got) {
		t.Errorf("the plan's arrays %v, the copy wrote %v", paths, got)
	}
	if got := int64(len(files(t, dst))); p.Totals.Keys != got {
		t.Errorf("the plan says %d keys, the copy wrote %d", p.Totals.Keys, got)
	}
	if p.Totals.Arrays != len(p.Arrays) || p.Totals.Groups != len(p.Groups) || p.Totals.Bytes == nil {
		t.Errorf("totals %+v for %d arrays, %d groups", p.Totals, len(p.Arrays), len(p.Groups))
	}
}
