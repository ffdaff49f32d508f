package transfer_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/zarrgw/zarrgw/core/dtype"
	"github.com/zarrgw/zarrgw/core/hierarchy"
	"github.com/zarrgw/zarrgw/core/meta"
	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/host/commands/transfer"
	"github.com/zarrgw/zarrgw/host/commands/transfer/layout"
	"github.com/zarrgw/zarrgw/host/commands/transfer/report"
)

// snapshot is every key of s with its bytes.
func snapshot(t *testing.T, s store.Store) map[string]string {
	t.Helper()
	ctx := context.Background()
	keys, err := store.ListAll(ctx, s, "")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, k := range keys {
		v, err := s.Get(ctx, k, store.ByteRange{})
		if err != nil {
			t.Fatal(err)
		}
		out[k] = string(v.Data)
	}
	return out
}

// other is a destination holding another hierarchy: a v2 root group with
// attributes and an array "other/x" of its own; consolidated when asked.
func other(t *testing.T, consolidated bool) store.Store {
	t.Helper()
	ctx := context.Background()
	s := store.NewMemory()
	if _, err := hierarchy.CreateGroup(ctx, s, "", meta.V2, json.RawMessage(`{"title":"theirs","kept":1}`)); err != nil {
		t.Fatal(err)
	}
	m := &meta.ArrayMeta{Format: meta.V2, Shape: []int{4}, ChunkShape: []int{2}, DataType: dtype.Named("int32"),
		FillValue: make([]byte, 4), ChunkKey: meta.ChunkKeyEncoding{Name: "v2", Separator: "."},
		Codecs: []meta.Extension{{Name: "bytes", Configuration: json.RawMessage(`{"endian":"little"}`)}}, Attributes: json.RawMessage(`{}`)}
	if _, err := hierarchy.CreateArray(ctx, s, "other/x", m, opts); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Set(ctx, "other/x/0", []byte("12345678"), store.Condition{}); err != nil {
		t.Fatal(err)
	}
	if consolidated {
		if err := hierarchy.Consolidate(ctx, s, ""); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

// A destination holding another hierarchy is refused, naming it and a
// key of the other hierarchy, and is left as it was; so is one holding
// only other metadata at a key the copy writes.
func TestForeignDestinationRefused(t *testing.T) {
	ctx := context.Background()
	for name, dst := range map[string]store.Store{"another hierarchy": other(t, false), "other root metadata": rootOnly(t)} {
		for _, o := range []transfer.Options{{}, {Spec: layout.Spec{ToFormat: meta.V3}}, {DryRun: true}} {
			before := snapshot(t, dst)
			_, err := transfer.Run(ctx, endpoint("src", source(t)), endpoint("dst.zarr", dst), o)
			var fe *transfer.ForeignError
			if !errors.As(err, &fe) || !strings.Contains(err.Error(), "dst.zarr") || !strings.Contains(err.Error(), `"`) {
				t.Fatalf("%s, %+v: %v, want a refusal naming the destination and a key", name, o, err)
			}
			if len(fe.Examples)+len(fe.DifferingExamples) == 0 || len(fe.Examples) > 2 || len(fe.DifferingExamples) > 2 {
				t.Errorf("%s: examples %v %v, want one or two", name, fe.Examples, fe.DifferingExamples)
			}
			if !maps.Equal(before, snapshot(t, dst)) {
				t.Fatalf("%s, %+v: the refused destination changed", name, o)
			}
		}
	}
}

// rootOnly holds a root group with other attributes than the source's,
// and nothing else.
func rootOnly(t *testing.T) store.Store {
	t.Helper()
	s := store.NewMemory()
	if _, err := s.Set(context.Background(), ".zgroup", []byte(`{"zarr_format": 3}`), store.Condition{}); err != nil {
		t.Fatal(err)
	}
	return s
}

// A destination holding an earlier, partial run of the same copy is its
// own: the copy goes on into it.
func TestSameCopyGoesOn(t *testing.T) {
	ctx := context.Background()
	for _, o := range []transfer.Options{{}, {Spec: layout.Spec{ToFormat: meta.V3, ChunksPerShard: 2}}} {
		src, dst := source(t), store.NewMemory()
		if _, err := transfer.Run(ctx, endpoint("src", src), endpoint("dst", dst), o); err != nil {
			t.Fatal(err)
		}
		want := snapshot(t, dst)
		n := 0
		for k := range want { // as an interrupted run leaves it: some keys missing
			if n++; n%3 == 0 {
				dst.Erase(ctx, k)
			}
		}
		p, err := transfer.Prepare(ctx, endpoint("src", src), endpoint("dst", dst), o)
		if err != nil {
			t.Fatalf("%+v: a partial copy of the same source is refused: %v", o, err)
		}
		if p.Target.State != report.StateSameCopy {
			t.Fatalf("%+v: state %q", o, p.Target.State)
		}
		if _, err := p.Run(ctx, endpoint("dst", dst)); err != nil {
			t.Fatal(err)
		}
		if !maps.Equal(want, snapshot(t, dst)) {
			t.Fatalf("%+v: the finished copy differs from an uninterrupted one", o)
		}
	}
}

// --overwrite leaves what a copy into an empty destination makes.
func TestOverwrite(t *testing.T) {
	ctx := context.Background()
	for _, o := range []transfer.Options{{}, {Spec: layout.Spec{ToFormat: meta.V3}}} {
		fresh := store.NewMemory()
		if _, err := transfer.Run(ctx, endpoint("src", source(t)), endpoint("dst", fresh), o); err != nil {
			t.Fatal(err)
		}
		dst := other(t, true)
		o.Existing = transfer.Overwrite
		if _, err := transfer.Run(ctx, endpoint("src", source(t)), endpoint("dst", dst), o); err != nil {
			t.Fatalf("%+v: %v", o, err)
		}
		if !maps.Equal(snapshot(t, fresh), snapshot(t, dst)) {
			t.Fatalf("%+v: overwritten, the destination is not what a fresh copy makes", o)
		}
	}
}

// A plan erases the destination first only where --overwrite meets other
// data: over an earlier run of the same copy, what its journal recorded
// still stands, even with --overwrite.
func TestOverwriteErasesOnlyOtherData(t *testing.T) {
	ctx := context.Background()
	o := transfer.Options{Existing: transfer.Overwrite}
	p, err := transfer.Prepare(ctx, endpoint("src", source(t)), endpoint("dst", other(t, false)), o)
	if err != nil {
		t.Fatal(err)
	}
	if !p.ErasesDestination() || p.Target.State != report.StateOverwrite {
		t.Errorf("over other data: erases %v, state %q", p.ErasesDestination(), p.Target.State)
	}
	same := store.NewMemory()
	if _, err := transfer.Run(ctx, endpoint("src", source(t)), endpoint("dst", same), transfer.Options{}); err != nil {
		t.Fatal(err)
	}
	p, err = transfer.Prepare(ctx, endpoint("src", source(t)), endpoint("dst", same), o)
	if err != nil {
		t.Fatal(err)
	}
	if p.ErasesDestination() || p.Target.State != report.StateSameCopy {
		t.Errorf("over the same copy: erases %v, state %q", p.ErasesDestination(), p.Target.State)
	}
}

// --merge keeps the other hierarchy's nodes, adds the copy's, merges the
// root's attributes (the copy's value where both name one) and rebuilds
// the consolidated metadata the destination had, over both.
func TestMerge(t *testing.T) {
	ctx := context.Background()
	dst := other(t, true)
	if _, err := transfer.Run(ctx, endpoint("src", source(t)), endpoint("dst", dst), transfer.Options{Existing: transfer.Merge}); err != nil {
		t.Fatal(err)
	}
	root, err := hierarchy.Open(ctx, dst, "")
	if err != nil || root.Group == nil {
		t.Fatalf("root: %v", err)
	}
	var attrs map[string]any
	json.Unmarshal(root.Group.Attributes, &attrs)
	if !reflect.DeepEqual(attrs, map[string]any{"title": "t", "kept": 1.0}) {
		t.Errorf("merged root attributes %s", root.Group.Attributes)
	}
	c := root.Group.Consolidated
	if c == nil || c.Arrays["other/x"] == nil || c.Arrays["g/a0"] == nil || c.Arrays["g/a1"] == nil {
		t.Fatalf("consolidated metadata after the merge: %+v", c)
	}
	for _, p := range []string{"other/x", "g/a0", "g/a1"} {
		if _, err := hierarchy.OpenArray(ctx, dst, p, opts); err != nil {
			t.Errorf("%s after the merge: %v", p, err)
		}
	}
	if v, err := dst.Get(ctx, "other/x/0", store.ByteRange{}); err != nil || string(v.Data) != "12345678" {
		t.Errorf("the other hierarchy's chunk: %q %v", v.Data, err)
	}
}

// Nodes that cannot be one are not merged, and the destination is left
// as it was: an array of another shape at the same path, a group where
// the copy has an array, another format.
func TestMergeConflicts(t *testing.T) {
	ctx := context.Background()
	for name, o := range map[string]transfer.Options{"array of another shape": {}, "another format": {Spec: layout.Spec{ToFormat: meta.V3}}} {
		dst := store.NewMemory()
		m := &meta.ArrayMeta{Format: meta.V2, Shape: []int{3}, ChunkShape: []int{3}, DataType: dtype.Named("int32"),
			FillValue: make([]byte, 4), ChunkKey: meta.ChunkKeyEncoding{Name: "v2", Separator: "."},
			Codecs: []meta.Extension{{Name: "bytes", Configuration: json.RawMessage(`{"endian":"little"}`)}}, Attributes: json.RawMessage(`{}`)}
		if _, err := hierarchy.CreateArray(ctx, dst, "g/a1", m, opts); err != nil {
			t.Fatal(err)
		}
		before := snapshot(t, dst)
		o.Existing = transfer.Merge
		_, err := transfer.Run(ctx, endpoint("src", source(t)), endpoint("dst", dst), o)
		var me *transfer.MergeError
		if !errors.As(err, &me) || !strings.Contains(err.Error(), "dst holds /") {
			t.Fatalf("%s: %v, want a refused merge naming the node", name, err)
		}
		if !maps.Equal(before, snapshot(t, dst)) {
			t.Fatalf("%s: the destination changed", name)
		}
	}
}

// A failure of the destination store itself ends the copy at its first
// key, once: no failure per key, no key after it.
func TestStoreFaultStopsCopy(t *testing.T) {
	ctx := context.Background()
	var sets atomic.Int64
	denied := store.WithHook(store.NewMemory(), func(ctx context.Context, op, key string, call func(context.Context) error) error {
		if op == "set" {
			sets.Add(1)
			return fmt.Errorf("set %s: %w (403 AccessDenied)", key, store.ErrAccessDenied)
		}
		return call(ctx)
	})
	for _, o := range []transfer.Options{{Jobs: 4}, {Spec: layout.Spec{ToFormat: meta.V3}, Jobs: 4}} {
		sets.Store(0)
		s, err := transfer.Run(ctx, endpoint("src", source(t)), endpoint("dst", denied), o)
		var fault *transfer.StoreFault
		if !errors.As(err, &fault) || !errors.Is(err, store.ErrAccessDenied) {
			t.Fatalf("%+v: %v, want the store's failure", o, err)
		}
		if s.Failed != 0 || len(s.Failures) != 0 || sets.Load() > 4 {
			t.Fatalf("%+v: %d failures listed, %d writes tried: the copy went on past the store's failure", o, len(s.Failures), sets.Load())
		}
	}
}

// The plan of a dry run counts what the copy then writes: every key, and
// per array the keys below it; a rewrite counts the chunks of the new
// grid holding stored values (the source's arrays are partly written).
func TestPlanMatchesRun(t *testing.T) {
	ctx := context.Background()
	for _, o := range []transfer.Options{{}, {Spec: layout.Spec{ToFormat: meta.V3, ChunksPerShard: 2}}, {Spec: layout.Spec{ToFormat: meta.V3, Chunks: []int{10}}, Path: "g/a1", Consolidate: true}} {
		src := source(t)
		dry := o
		dry.DryRun = true
		p, err := transfer.Prepare(ctx, endpoint("src", src), endpoint("dst", store.NewMemory()), dry)
		if err != nil {
			t.Fatal(err)
		}
		dst := store.NewMemory()
		if _, err := transfer.Run(ctx, endpoint("src", src), endpoint("dst", dst), o); err != nil {
			t.Fatal(err)
		}
		got := snapshot(t, dst)
		if int64(len(got)) != p.Totals.Keys {
			t.Errorf("%+v: the plan says %d keys, the copy wrote %d", o, p.Totals.Keys, len(got))
		}
		for _, a := range p.Arrays {
			n := 0
			for k := range got {
				if strings.HasPrefix(k, a.Path+"/") {
					n++
				}
			}
			if int64(n) != a.Keys || a.Bytes == nil || *a.Bytes == 0 {
				t.Errorf("%+v: array %s: the plan says %d keys (%v bytes), the copy wrote %d", o, a.Path, a.Keys, a.Bytes, n)
			}
		}
		if len(p.Arrays) == 0 {
			t.Errorf("%+v: no arrays in the plan", o)
		}
	}
}
