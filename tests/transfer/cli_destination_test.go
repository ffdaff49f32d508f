package transfer

import (
	"context"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/zarrgw/zarrgw/core/hierarchy"
	"github.com/zarrgw/zarrgw/core/meta"
	"github.com/zarrgw/zarrgw/plugins/stores/fsstore"
)

// theirs writes another hierarchy into dir: a v3 root group with
// attributes, consolidated, holding an array "theirs" of its own.
func theirs(t *testing.T, dir string) {
	t.Helper()
	writeNoisyArray(t, dir, "theirs", []int{8, 8}, []int{4, 4})
	ctx := context.Background()
	s, err := fsstore.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := hierarchy.CreateGroup(ctx, s, "", meta.V3, json.RawMessage(`{"title":"theirs","owner":"them"}`)); err != nil {
		t.Fatal(err)
	}
	if err := hierarchy.Consolidate(ctx, s, ""); err != nil {
		t.Fatal(err)
	}
}

// cp into a destination holding another hierarchy is refused: one error
// naming the destination and one or two of its keys, the way out, and
// the destination byte for byte as it was; so for a rewrite, a dry run,
// and a destination holding only another root document.
func TestCLIRefusesForeignDestination(t *testing.T) {
	src := t.TempDir()
	writeNoisyArray(t, src, "a", []int{64, 64}, []int{16, 16})
	foreign, rootOnly := t.TempDir(), t.TempDir()
	theirs(t, foreign)
	if err := os.WriteFile(filepath.Join(rootOnly, "zarr.json"), []byte(`{"zarr_format":3,"node_type":"group","attributes":{"x":1}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, dst := range []string{foreign, rootOnly} {
		for _, args := range [][]string{{}, {"--to-format", "3", "--chunks-per-shard", "2"}, {"--dry-run"}, {"--dry-run", "--json"}} {
			before := tree(t, dst)
			out, errOut, code := zarrgwIn(t, t.TempDir(), append(append([]string{"cp", "-q"}, args...), src, dst)...)
			errLines := lines(errOut)
			if code != 1 || len(errLines) != 1 || !strings.Contains(errOut, dst) || !strings.Contains(errOut, "--overwrite") {
				t.Errorf("cp %v into another hierarchy: exit %d, want 1 and one line naming %s\nstdout %s\nstderr %s", args, code, dst, out, errOut)
			}
			if dst == foreign && !strings.Contains(errOut, `"theirs/`) {
				t.Errorf("cp %v: the refusal names none of the other hierarchy's keys: %s", args, errOut)
			}
			if dst == rootOnly && !strings.Contains(errOut, `"zarr.json"`) {
				t.Errorf("cp %v: the refusal does not name the other root document: %s", args, errOut)
			}
			if after := tree(t, dst); !maps.Equal(before, after) {
				t.Fatalf("cp %v changed the destination it refused", args)
			}
		}
	}
}

// --overwrite replaces what the destination holds: the result is what a
// copy into an empty directory makes.
func TestCLIOverwrite(t *testing.T) {
	src := t.TempDir()
	writeV2Source(t, src)
	for _, args := range [][]string{{}, {"--to-format", "3"}} {
		fresh := filepath.Join(t.TempDir(), "fresh")
		if _, errOut, code := zarrgwIn(t, t.TempDir(), append(append([]string{"cp", "-q"}, args...), src, fresh)...); code != 0 {
			t.Fatalf("cp %v: exit %d\n%s", args, code, errOut)
		}
		dst := t.TempDir()
		theirs(t, dst)
		if _, errOut, code := zarrgwIn(t, t.TempDir(), append(append([]string{"cp", "-q", "--overwrite"}, args...), src, dst)...); code != 0 {
			t.Fatalf("cp --overwrite %v: exit %d\n%s", args, code, errOut)
		}
		if want, got := tree(t, fresh), tree(t, dst); !maps.Equal(want, got) {
			t.Errorf("cp --overwrite %v: %d files and directories, a fresh copy %d, or their bytes differ", args, len(got), len(want))
		}
	}
}

// --merge keeps the other hierarchy (its array byte for byte), adds the
// copy, merges the root's attributes (the copy's value where both name
// one), and rebuilds its consolidated metadata over both.
func TestCLIMerge(t *testing.T) {
	src := t.TempDir()
	writeNoisyArray(t, src, "a", []int{64, 64}, []int{16, 16})
	ctx := context.Background()
	s, _ := fsstore.New(src)
	if _, err := hierarchy.CreateGroup(ctx, s, "", meta.V3, json.RawMessage(`{"title":"ours"}`)); err != nil {
		t.Fatal(err)
	}
	dst := t.TempDir()
	theirs(t, dst)
	before := tree(t, filepath.Join(dst, "theirs"))
	if out, errOut, code := zarrgwIn(t, t.TempDir(), "cp", "-q", "--merge", src, dst); code != 0 {
		t.Fatalf("cp --merge: exit %d\n%s%s", code, out, errOut)
	}
	if !maps.Equal(before, tree(t, filepath.Join(dst, "theirs"))) {
		t.Error("the other hierarchy's array changed in the merge")
	}
	var root struct {
		Attributes   map[string]any `json:"attributes"`
		Consolidated struct {
			Metadata map[string]any `json:"metadata"`
		} `json:"consolidated_metadata"`
	}
	b, err := os.ReadFile(filepath.Join(dst, "zarr.json"))
	if err != nil || json.Unmarshal(b, &root) != nil {
		t.Fatalf("root document: %v\n%s", err, b)
	}
	if want := map[string]any{"title": "ours", "owner": "them"}; !reflect.DeepEqual(root.Attributes, want) {
		t.Errorf("merged root attributes %v, want %v", root.Attributes, want)
	}
	if root.Consolidated.Metadata["theirs"] == nil || root.Consolidated.Metadata["a"] == nil {
		t.Errorf("consolidated metadata after the merge lists %v, want both arrays", keysOf(root.Consolidated.Metadata))
	}
	if want, got := catRaw(t, src, "a"), catRaw(t, dst, "a"); string(want) != string(got) {
		t.Error("the merged array reads differently from its source")
	}
	// merged again: nothing changes (the copy's keys are its own now)
	again := tree(t, dst)
	if _, errOut, code := zarrgwIn(t, t.TempDir(), "cp", "-q", "--merge", src, dst); code != 0 {
		t.Fatalf("cp --merge again: exit %d\n%s", code, errOut)
	}
	if got := tree(t, dst); !maps.Equal(again, got) {
		t.Error("a second identical merge changed the destination")
	}
}

func keysOf(m map[string]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
