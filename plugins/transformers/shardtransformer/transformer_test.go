package shardtransformer

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"testing"

	"github.com/zarrgw/zarrgw/core/meta"
	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/core/store/storetest"
)

var ctx = context.Background()

func draftArray(sep string) Layout {
	return Layout{Prefix: "data/root/foo/baz/", Encoding: meta.ChunkKeyEncoding{Name: "draft", Separator: sep}}
}

func finalArray(sep string) Layout {
	return Layout{Prefix: "foo/", Encoding: meta.ChunkKeyEncoding{Name: "default", Separator: sep}}
}

func TestKeyTranslation(t *testing.T) {
	cases := []struct {
		layout   Layout
		cps      []int
		key      string
		shardKey string
		pos      int
	}{
		{draftArray("/"), []int{32, 2}, "data/root/foo/baz/c96/18", "data/root/foo/baz/c3/9", 0},
		{draftArray("/"), []int{32, 2}, "data/root/foo/baz/c127/19", "data/root/foo/baz/c3/9", 63},
		{draftArray("."), []int{32, 2}, "data/root/foo/baz/c97.18", "data/root/foo/baz/c3.9", 2},
		{DraftLayout("/"), []int{32, 2}, "data/root/foo/baz/c96/18", "data/root/foo/baz/c3/9", 0},
		{DraftLayout("/"), []int{2}, "data/root/c5", "data/root/c2", 1},
		{finalArray("/"), []int{32, 2}, "foo/c/96/19", "foo/c/3/9", 1},
		{finalArray("."), []int{32, 2}, "foo/c.96.19", "foo/c.3.9", 1},
		{Layout{Encoding: meta.ChunkKeyEncoding{Name: "default", Separator: "/"}}, []int{2, 2, 2}, "c/3/2/1", "c/1/1/0", 5},
		{Layout{Prefix: "a/", Encoding: meta.ChunkKeyEncoding{Name: "v2", Separator: "."}}, []int{4}, "a/9", "a/2", 1},
		{Layout{Encoding: meta.ChunkKeyEncoding{Name: "default"}}, []int{}, "c", "c", 0},
	}
	for _, c := range cases {
		s, err := NewWith(store.NewMemory(), c.layout, c.cps, Options{})
		if err != nil {
			t.Fatal(err)
		}
		sk, pos, ok := s.locate(c.key)
		if !ok || sk != c.shardKey || pos != c.pos {
			t.Errorf("%s (cps %v) -> %q %d %v, want %q %d", c.key, c.cps, sk, pos, ok, c.shardKey, c.pos)
		}
	}
	s, _ := NewWith(store.NewMemory(), finalArray("/"), []int{2, 2}, Options{})
	for _, key := range []string{"foo/zarr.json", "foo/c/1", "foo/c/1/2/3", "foo/c/x/1", "bar/c/1/1", "foo/bar/c/1/1", "foo/c/01/1"} {
		if sk, _, ok := s.locate(key); ok {
			t.Errorf("%s is not a chunk key, mapped to %s", key, sk)
		}
	}
}

// chunkStore is a transformer over a memory store, with its next store.
func chunkStore(t *testing.T, l Layout, cps []int) (*Store, *store.Memory) {
	t.Helper()
	next := store.NewMemory()
	s, err := NewWith(next, l, cps, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return s, next
}

func TestSetGetErase(t *testing.T) {
	s, next := chunkStore(t, finalArray("/"), []int{2, 2})
	for i, key := range []string{"foo/c/0/0", "foo/c/1/1", "foo/c/2/3", "foo/zarr.json"} {
		if _, err := s.Set(ctx, key, []byte(fmt.Sprint("value ", i)), store.Condition{}); err != nil {
			t.Fatal(err)
		}
	}
	got, _ := store.ListAll(ctx, next, "")
	if !reflect.DeepEqual(got, []string{"foo/c/0/0", "foo/c/1/1", "foo/zarr.json"}) {
		t.Fatalf("next store holds %v (shards c/0/0 and c/1/1)", got)
	}
	v, err := s.Get(ctx, "foo/c/1/1", store.ByteRange{})
	if err != nil || string(v.Data) != "value 1" {
		t.Fatalf("get: %q %v", v.Data, err)
	}
	v, err = s.Get(ctx, "foo/c/2/3", store.Last(1))
	if err != nil || string(v.Data) != "2" {
		t.Fatalf("suffix get: %q %v", v.Data, err)
	}
	if _, err := s.Get(ctx, "foo/c/0/1", store.ByteRange{}); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("absent chunk in a stored shard: %v", err)
	}
	if _, err := s.Get(ctx, "foo/c/9/9", store.ByteRange{}); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("absent shard: %v", err)
	}
	info, err := s.Stat(ctx, "foo/c/2/3")
	if err != nil || info.Size != 7 {
		t.Fatalf("stat: %+v %v", info, err)
	}
	if err := s.Erase(ctx, "foo/c/0/0"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get(ctx, "foo/c/0/0", store.ByteRange{}); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("erased chunk: %v", err)
	}
	if v, err := s.Get(ctx, "foo/c/1/1", store.ByteRange{}); err != nil || string(v.Data) != "value 1" {
		t.Fatalf("neighbour of an erased chunk: %q %v", v.Data, err)
	}
}

func TestConditionalChunkWrites(t *testing.T) {
	s, _ := chunkStore(t, finalArray("/"), []int{2})
	v1, err := s.Set(ctx, "foo/c/0", []byte("a"), store.Condition{IfNoneMatch: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Set(ctx, "foo/c/0", []byte("b"), store.Condition{IfNoneMatch: true}); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("IfNoneMatch on a stored chunk: %v", err)
	}
	if _, err := s.Set(ctx, "foo/c/1", []byte("c"), store.Condition{IfNoneMatch: true}); err != nil {
		t.Fatalf("IfNoneMatch on an absent chunk of a stored shard: %v", err)
	}
	// The shard changed since v1 was read: a write conditional on v1 must
	// fail, even though the chunk itself did not change.
	if _, err := s.Set(ctx, "foo/c/0", []byte("d"), store.Condition{IfMatch: v1}); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("IfMatch on a stale version: %v", err)
	}
	v, _ := s.Get(ctx, "foo/c/0", store.ByteRange{})
	if _, err := s.Set(ctx, "foo/c/0", []byte("e"), store.Condition{IfMatch: v.Version}); err != nil {
		t.Fatalf("IfMatch on the current version: %v", err)
	}
}

// TestListing follows the spec's "API implementation": listings return
// the original keys of the chunks that exist.
func TestListing(t *testing.T) {
	for _, l := range []Layout{finalArray("/"), draftArray("/"), DraftLayout("/")} {
		s, _ := chunkStore(t, l, []int{32, 2})
		p := l.Prefix
		if l.AnyDepth {
			p = "data/root/foo/baz/"
		}
		lead := "c/"
		if l.Encoding.Name == "draft" {
			lead = "c"
		}
		chunks := []string{p + lead + "96/18", p + lead + "97/19", p + lead + "5/0", p + lead + "128/1"}
		for _, k := range append(slices.Clone(chunks), p+"meta.json") {
			if _, err := s.Set(ctx, k, []byte(k), store.Condition{}); err != nil {
				t.Fatal(err)
			}
		}
		all, err := store.ListAll(ctx, s, "")
		want := append(slices.Clone(chunks), p+"meta.json")
		slices.Sort(want)
		if err != nil || !reflect.DeepEqual(all, want) {
			t.Errorf("%+v: list = %v (%v), want %v", l, all, err, want)
		}
		part, err := store.ListAll(ctx, s, p+lead+"96/")
		if err != nil || !reflect.DeepEqual(part, []string{p + lead + "96/18"}) {
			t.Errorf("%+v: list %s = %v (%v)", l, p+lead+"96/", part, err)
		}
		checkListDir(t, s, l, p, lead)
		checkErasePrefix(t, s, p, lead)
	}
}

func checkListDir(t *testing.T, s *Store, l Layout, p, lead string) {
	t.Helper()
	d, err := s.ListDir(ctx, p+lead+"96/")
	if err != nil || !reflect.DeepEqual(d.Keys, []string{p + lead + "96/18"}) || len(d.Prefixes) != 0 {
		t.Errorf("%+v: list_dir %s = %+v (%v)", l, p+lead+"96/", d, err)
	}
	d, err = s.ListDir(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(d.Keys, p+"meta.json") || len(d.Keys) != 1 {
		t.Errorf("%+v: list_dir %s keys = %v", l, p, d.Keys)
	}
	// Shard prefixes c0, c2, c4 (or c/) cover chunk prefixes 0..31, 64..95, 96..127, 128..159.
	want := p + lead + "100/"
	if l.Encoding.Name == "default" {
		want = p + "c/"
		if d2, _ := s.ListDir(ctx, p+"c/"); !slices.Contains(d2.Prefixes, p+"c/100/") || slices.Contains(d2.Prefixes, p+"c/40/") {
			t.Errorf("%+v: list_dir %sc/ prefixes = %v", l, p, d2.Prefixes)
		}
	}
	if !slices.Contains(d.Prefixes, want) {
		t.Errorf("%+v: list_dir %s prefixes = %v, want %s among them", l, p, d.Prefixes, want)
	}
}

func checkErasePrefix(t *testing.T, s *Store, p, lead string) {
	t.Helper()
	if err := s.ErasePrefix(ctx, p+lead+"97/"); err != nil {
		t.Fatal(err)
	}
	all, _ := store.ListAll(ctx, s, p)
	if slices.Contains(all, p+lead+"97/19") || !slices.Contains(all, p+lead+"96/18") {
		t.Errorf("erase prefix %s97/ left %v", p+lead, all)
	}
	if err := s.ErasePrefix(ctx, p); err != nil {
		t.Fatal(err)
	}
	if all, _ := store.ListAll(ctx, s, ""); len(all) != 0 {
		t.Errorf("erase prefix %s left %v", p, all)
	}
}

// TestPassThrough runs the store conformance suite on keys that are not
// chunk keys: the transformer must behave as the store below it.
func TestPassThrough(t *testing.T) {
	storetest.Run(t, func(t *testing.T) store.Store {
		s, err := New(store.NewMemory(), finalArray("/"), []int{2, 2})
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}

func TestParseConfig(t *testing.T) {
	if cps, err := ParseConfig([]byte(`{"chunks_per_shard":[2,3],"type":"indexed"}`), 2); err != nil || !slices.Equal(cps, []int{2, 3}) {
		t.Fatalf("%v %v", cps, err)
	}
	for _, bad := range []string{``, `{}`, `{"chunks_per_shard":[2]}`, `{"chunks_per_shard":[2,0]}`, `{"chunks_per_shard":[2,2],"type":"other"}`, `[`} {
		if _, err := ParseConfig([]byte(bad), 2); err == nil {
			t.Errorf("accepted %s", bad)
		}
	}
	for _, name := range append([]string{Name}, Aliases...) {
		if !Handles(name) {
			t.Errorf("%s not handled", name)
		}
	}
}
