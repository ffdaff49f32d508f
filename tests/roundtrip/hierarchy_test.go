package roundtrip

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"reflect"
	"sort"
	"testing"

	"github.com/zarrgw/zarrgw/core/array"
	"github.com/zarrgw/zarrgw/core/dtype"
	"github.com/zarrgw/zarrgw/core/grid"
	"github.com/zarrgw/zarrgw/core/hierarchy"
	"github.com/zarrgw/zarrgw/core/meta"
	"github.com/zarrgw/zarrgw/core/ndarray"
	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/host/runtime/registry"
)

func int32Meta(f meta.Format, shape, chunks []int) *meta.ArrayMeta {
	m := &meta.ArrayMeta{Format: f, Shape: shape, ChunkShape: chunks, DataType: dtype.Named("int32"),
		FillValue: []byte{0xff, 0xff, 0xff, 0xff}, Codecs: []meta.Extension{ext("bytes", `{"endian":"little"}`)},
		ChunkKey: meta.ChunkKeyEncoding{Name: "default", Separator: "/"}, Attributes: json.RawMessage("{}")}
	if f == meta.V2 {
		m.ChunkKey = meta.ChunkKeyEncoding{Name: "v2", Separator: "."}
	}
	return m
}

func arange(shape []int) *ndarray.Array {
	a := ndarray.New(dtype.Named("int32"), shape)
	for i := 0; i < a.Len(); i++ {
		binary.LittleEndian.PutUint32(a.Data[4*i:], uint32(i))
	}
	return a
}

func int32At(a *ndarray.Array, i int) int32 { return int32(binary.LittleEndian.Uint32(a.Data[4*i:])) }

func keys(t *testing.T, s store.Store) []string {
	t.Helper()
	ks, err := store.ListAll(context.Background(), s, "")
	if err != nil {
		t.Fatal(err)
	}
	return ks
}

func TestCreateWritesAncestors(t *testing.T) {
	ctx := context.Background()
	want := map[meta.Format][]string{
		meta.V3: {"a/b/c/zarr.json", "a/b/zarr.json", "a/zarr.json", "zarr.json"},
		meta.V2: {".zattrs", ".zgroup", "a/.zattrs", "a/.zgroup", "a/b/.zattrs", "a/b/.zgroup", "a/b/c/.zarray", "a/b/c/.zattrs"},
	}
	for f, w := range want {
		s := store.NewMemory()
		if _, err := hierarchy.CreateArray(ctx, s, "a/b/c", int32Meta(f, []int{2}, []int{2}), array.Options{Codecs: registry.Codecs()}); err != nil {
			t.Fatal(err)
		}
		if got := keys(t, s); !reflect.DeepEqual(got, w) {
			t.Errorf("%s: keys %v, want %v", f, got, w)
		}
	}
}

// Shrinking deletes chunks outside the new shape and clears the cut part of
// edge chunks, so growing again shows the fill value, not old data.
func TestResize(t *testing.T) {
	ctx := context.Background()
	for _, f := range []meta.Format{meta.V3, meta.V2} {
		s := store.NewMemory()
		opts := array.Options{Codecs: registry.Codecs()}
		a, err := hierarchy.CreateArray(ctx, s, "x", int32Meta(f, []int{6, 6}, []int{4, 4}), opts)
		if err != nil {
			t.Fatal(err)
		}
		if err := a.WriteAll(ctx, arange([]int{6, 6})); err != nil {
			t.Fatal(err)
		}
		if err := a.Resize(ctx, []int{3, 6}); err != nil {
			t.Fatal(err)
		}
		if n := len(keys(t, s)); (f == meta.V3 && n != 4) || (f == meta.V2 && n != 6) {
			t.Errorf("%s: %d keys after shrinking, want the two chunks of row 0 plus metadata: %v", f, n, keys(t, s))
		}
		if err := a.Resize(ctx, []int{6, 7}); err != nil {
			t.Fatal(err)
		}
		b, err := hierarchy.OpenArray(ctx, s, "x", opts)
		if err != nil {
			t.Fatal(err)
		}
		if got := b.Shape(); !reflect.DeepEqual(got, []int{6, 7}) {
			t.Fatalf("%s: reopened shape %v", f, got)
		}
		all, err := b.ReadAll(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for r := 0; r < 6; r++ {
			for c := 0; c < 7; c++ {
				want := int32(-1)
				if r < 3 && c < 6 {
					want = int32(r*6 + c)
				}
				if got := int32At(all, r*7+c); got != want {
					t.Fatalf("%s: [%d,%d] = %d, want %d", f, r, c, got, want)
				}
			}
		}
	}
}

func TestConsolidate(t *testing.T) {
	ctx := context.Background()
	for _, f := range []meta.Format{meta.V3, meta.V2} {
		s := store.NewMemory()
		opts := array.Options{Codecs: registry.Codecs()}
		for _, p := range []string{"g/a", "g/h/b", "c"} {
			if _, err := hierarchy.CreateArray(ctx, s, p, int32Meta(f, []int{2}, []int{2}), opts); err != nil {
				t.Fatal(err)
			}
		}
		if err := hierarchy.Consolidate(ctx, s, ""); err != nil {
			t.Fatal(err)
		}
		root, err := hierarchy.Open(ctx, s, "")
		if err != nil {
			t.Fatal(err)
		}
		c := root.Group.Consolidated
		if c == nil {
			t.Fatalf("%s: no consolidated metadata after Consolidate", f)
		}
		var members []string
		for p := range c.Arrays {
			members = append(members, p)
		}
		for p := range c.Groups {
			if p != "" { // v2 keeps the root's own documents under ""
				members = append(members, p)
			}
		}
		sort.Strings(members)
		if want := []string{"c", "g", "g/a", "g/h", "g/h/b"}; !reflect.DeepEqual(members, want) {
			t.Errorf("%s: members %v, want %v", f, members, want)
		}
		kids, err := hierarchy.Children(ctx, s, root)
		if err != nil || len(kids) != 2 || kids[0].Path != "c" || kids[1].Path != "g" {
			t.Errorf("%s: children from consolidated metadata: %v %v", f, kids, err)
		}
	}
}

// A hierarchy in the 2019-2022 draft layout, as zarr-python 2.13 wrote it,
// opens read-only.
func TestDraftLayout(t *testing.T) {
	ctx := context.Background()
	s := store.NewMemory()
	put := func(k, v string) {
		if _, err := s.Set(ctx, k, []byte(v), store.Condition{}); err != nil {
			t.Fatal(err)
		}
	}
	put("zarr.json", `{"zarr_format": "https://purl.org/zarr/spec/protocol/core/3.0",
		"metadata_encoding": "https://purl.org/zarr/spec/protocol/core/3.0", "metadata_key_suffix": ".json", "extensions": []}`)
	put("meta/root.group.json", `{"attributes": {"title": "draft"}}`)
	put("meta/root/foo/bar.array.json", `{"attributes": {}, "chunk_grid": {"chunk_shape": [2, 2], "separator": "/", "type": "regular"},
		"chunk_memory_layout": "C", "data_type": "<i4", "extensions": [], "fill_value": 7, "shape": [3, 3]}`)
	chunk := make([]byte, 16)
	for i := 0; i < 4; i++ {
		binary.LittleEndian.PutUint32(chunk[4*i:], uint32(10+i))
	}
	if _, err := s.Set(ctx, "data/root/foo/bar/c0/0", chunk, store.Condition{}); err != nil {
		t.Fatal(err)
	}
	root, err := hierarchy.Open(ctx, s, "")
	if err != nil || root.Group == nil || root.Format() != meta.V3Draft {
		t.Fatalf("root: %+v %v", root, err)
	}
	kids, err := hierarchy.Children(ctx, s, root)
	if err != nil || len(kids) != 1 || kids[0].Path != "foo" || !kids[0].Implicit {
		t.Fatalf("children of draft root: %+v %v", kids, err)
	}
	a, err := hierarchy.OpenArray(ctx, s, "foo/bar", array.Options{Codecs: registry.Codecs()})
	if err != nil {
		t.Fatal(err)
	}
	got, err := a.ReadAll(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := []int32{10, 11, 7, 12, 13, 7, 7, 7, 7}
	for i, w := range want {
		if g := int32At(got, i); g != w {
			t.Fatalf("element %d = %d, want %d", i, g, w)
		}
	}
	err = a.Write(ctx, grid.All(a.Shape()), got)
	if !errors.Is(err, array.ErrReadOnly) {
		t.Fatalf("write to a draft array: %v, want ErrReadOnly", err)
	}
}
