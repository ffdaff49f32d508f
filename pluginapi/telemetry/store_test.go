package telemetry

import (
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"os"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/codes"

	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/core/store/storetest"
)

// The wrapper is a store like any other: the conformance suite passes
// through it.
func TestStoreConformance(t *testing.T) {
	record(t)
	storetest.Run(t, func(t *testing.T) store.Store { return Store(store.NewMemory(), "memory") })
}

// It claims the optional operations of its store, and only those, and
// serves them through the store's own; it keeps its store's bytes, so it
// must keep a store of files one (without OpenFile and SetFrom, traces
// on would turn streamed uploads into bodies held in memory).
func TestStoreForwarding(t *testing.T) {
	record(t)
	storetest.RunForwarding(t, func(_ testing.TB, inner store.Store) store.Store {
		return Store(inner, "memory")
	}, storetest.ForwardOptions{KeepsBytes: true})
}

// Each call makes one span, the child of the caller's, named after the
// call, with the layer, the key and what came of it; a missing key is not
// a failure, another error is.
func TestStoreSpans(t *testing.T) {
	rec := record(t)
	ctx := t.Context()
	s := Store(store.NewMemory(), "memory")
	if _, err := s.Set(ctx, "a/b", []byte("12345"), store.Condition{IfNoneMatch: true}); err != nil {
		t.Fatal(err)
	}
	ctx, parent := tracer().Start(ctx, "caller")
	rec.Reset()
	s.Get(ctx, "a/b", store.ByteRange{})
	s.Get(ctx, "a/b", store.Range(1, 2))
	s.Get(ctx, "missing", store.ByteRange{})
	s.Stat(ctx, "a/b")
	s.Set(ctx, "a/b", []byte("x"), store.Condition{IfMatch: "not-the-version"})
	store.GetInto(ctx, s, "a/b", make([]byte, 5))
	store.Collect(s.List(ctx, "a/"))
	store.Collect(store.ListSorted(ctx, s, "", "a"))
	s.ListDir(ctx, "")
	s.Erase(ctx, "a/b")
	failing := Store(store.WithOptional(failingStore{store.NewMemory()}, store.Optional{}), "failing")
	failing.Get(ctx, "k", store.ByteRange{})
	parent.End()

	type want struct {
		name  string
		attrs map[string]any
		fails bool
	}
	wants := []want{
		{"store.Get", map[string]any{AttrStoreLayer: "memory", AttrStoreKey: "a/b", AttrStoreBytes: int64(5)}, false},
		{"store.GetRange", map[string]any{AttrStoreKey: "a/b", AttrStoreRange: "bytes=1-2", AttrStoreBytes: int64(2)}, false},
		{"store.Get", map[string]any{AttrStoreKey: "missing", AttrStoreFound: false}, false},
		{"store.Stat", map[string]any{AttrStoreKey: "a/b", AttrStoreSize: int64(5)}, false},
		{"store.Set", map[string]any{AttrStoreKey: "a/b", AttrStoreBytes: int64(1), AttrStoreCondition: "if-match", AttrStoreConflict: true}, false},
		{"store.GetInto", map[string]any{AttrStoreKey: "a/b", AttrStoreBytes: int64(5)}, false},
		{"store.List", map[string]any{AttrStorePrefix: "a/", AttrStoreKeys: int64(1)}, false},
		{"store.ListSorted", map[string]any{AttrStorePrefix: "", AttrStoreStartAfter: "a", AttrStoreKeys: int64(1)}, false},
		{"store.ListDir", map[string]any{AttrStorePrefix: "", AttrStoreKeys: int64(0), AttrStorePrefixes: int64(1)}, false},
		{"store.Erase", map[string]any{AttrStoreKey: "a/b"}, false},
		{"store.Get", map[string]any{AttrStoreLayer: "failing", AttrStoreKey: "k"}, true},
	}
	var got []spanView
	for _, sp := range rec.Ended() {
		if sp.Name() != "caller" {
			got = append(got, sp)
		}
	}
	if len(got) != len(wants) {
		for _, sp := range got {
			t.Log(describe(sp))
		}
		t.Fatalf("%d spans, want %d", len(got), len(wants))
	}
	for i, w := range wants {
		sp := got[i]
		if sp.Name() != w.name {
			t.Errorf("span %d: %s, want %s", i, describe(sp), w.name)
			continue
		}
		if sp.Parent().SpanID() != parent.SpanContext().SpanID() {
			t.Errorf("span %d (%s) is not the caller's child", i, sp.Name())
		}
		for k, v := range w.attrs {
			if a, ok := attr(sp, k); !ok || a.AsInterface() != v {
				t.Errorf("span %d (%s): %s = %v (set: %v), want %v", i, sp.Name(), k, a.AsInterface(), ok, v)
			}
		}
		if failed := sp.Status().Code == codes.Error; failed != w.fails {
			t.Errorf("span %d: %s: failed %v, want %v", i, describe(sp), failed, w.fails)
		}
	}
}

// A listing's span starts when it is iterated, lasts while it is, and is
// the parent of the store's own calls for it; stopping early ends it.
func TestStoreListingSpan(t *testing.T) {
	rec := record(t)
	ctx := t.Context()
	inner := Store(store.NewMemory(), "inner")
	for _, k := range []string{"a", "b", "c"} {
		inner.Set(ctx, k, []byte(k), store.Condition{})
	}
	outer := Store(store.WithOptional(walker{inner}, store.Optional{}), "outer")
	rec.Reset()
	seq := outer.List(ctx, "")
	if n := len(rec.Ended()); n != 0 {
		t.Fatalf("%d spans before the listing was iterated", n)
	}
	for range seq {
		break
	}
	spans := rec.Ended()
	if len(spans) != 2 {
		t.Fatalf("%d spans, want the outer listing's and the inner ListDir's", len(spans))
	}
	var list, dir spanView
	for _, s := range spans {
		switch s.Name() {
		case "store.List":
			list = s
		case "store.ListDir":
			dir = s
		}
	}
	if list == nil || dir == nil || dir.Parent().SpanID() != list.SpanContext().SpanID() {
		t.Fatalf("the store's ListDir is not the listing's child: %v, %v", describe(list), describe(dir))
	}
	if a, _ := attr(list, AttrStoreKeys); a.AsInt64() != 1 {
		t.Errorf("a listing stopped after one key counts %d", a.AsInt64())
	}
}

// walker lists by walking its store's directories: a store whose listing
// calls the store below, as a transformer's does.
type walker struct{ store.Store }

func (w walker) List(ctx context.Context, prefix string) iter.Seq2[string, error] {
	return func(yield func(string, error) bool) {
		d, err := w.Store.ListDir(ctx, prefix)
		if err != nil {
			yield("", err)
			return
		}
		for _, k := range d.Keys {
			if !yield(k, nil) {
				return
			}
		}
	}
}

var errBroken = errors.New("store broken")

// failingStore fails every Get with an error that is not ErrNotFound.
type failingStore struct{ store.Store }

func (f failingStore) Get(context.Context, string, store.ByteRange) (store.Value, error) {
	return store.Value{}, errBroken
}

// A store of files keeps its streamed calls traced: "store.SetFrom" with
// the bytes its stream delivered, "store.OpenFile" with the value's size,
// each the caller's child.
func TestStoreFileSpans(t *testing.T) {
	rec := record(t)
	s := Store(filesStore{store.NewMemory()}, "files")
	ctx, parent := tracer().Start(t.Context(), "caller")
	if _, err := store.SetFrom(ctx, s, "a/b", strings.NewReader("streamed"), store.Condition{IfNoneMatch: true}); err != nil {
		t.Fatal(err)
	}
	if _, info, err := store.OpenFile(ctx, s, "a/b", make([]byte, 64)); err != nil || info.Size != 8 {
		t.Fatalf("OpenFile: %v, %+v", err, info)
	}
	parent.End()
	wants := map[string]map[string]any{
		"store.SetFrom":  {AttrStoreLayer: "files", AttrStoreKey: "a/b", AttrStoreBytes: int64(8), AttrStoreCondition: "if-none-match"},
		"store.OpenFile": {AttrStoreLayer: "files", AttrStoreKey: "a/b", AttrStoreSize: int64(8)},
	}
	for _, sp := range rec.Ended() {
		w, ok := wants[sp.Name()]
		if !ok {
			continue
		}
		delete(wants, sp.Name())
		if sp.Parent().SpanID() != parent.SpanContext().SpanID() {
			t.Errorf("%s is not the caller's child", sp.Name())
		}
		for k, v := range w {
			if a, ok := attr(sp, k); !ok || a.AsInterface() != v {
				t.Errorf("%s: %s = %v (set: %v), want %v", describe(sp), k, a.AsInterface(), ok, v)
			}
		}
	}
	for name := range wants {
		t.Errorf("no %s span", name)
	}
}

// filesStore is a memory store that is a store of files: it streams
// writes and hands out small values in the caller's buffer.
type filesStore struct{ *store.Memory }

func (f filesStore) Capabilities() store.Capabilities {
	c := f.Memory.Capabilities()
	c.File = true
	return c
}

func (f filesStore) OpenFile(ctx context.Context, key string, buf []byte) (*os.File, store.Info, error) {
	v, err := f.Get(ctx, key, store.ByteRange{})
	if err != nil {
		return nil, store.Info{}, err
	}
	if len(v.Data) > len(buf) {
		return nil, store.Info{}, fmt.Errorf("open %q: only values that fit the buffer: %w", key, store.ErrUnsupported)
	}
	copy(buf, v.Data)
	return nil, store.Info{Size: int64(len(v.Data)), Version: v.Version}, nil
}

func (f filesStore) SetFrom(ctx context.Context, key string, r io.Reader, cond store.Condition) (string, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return "", err
	}
	return f.Set(ctx, key, data, cond)
}
