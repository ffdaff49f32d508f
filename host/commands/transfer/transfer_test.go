package transfer_test

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/zarrgw/zarrgw/core/array"
	"github.com/zarrgw/zarrgw/core/dtype"
	"github.com/zarrgw/zarrgw/core/grid"
	"github.com/zarrgw/zarrgw/core/hierarchy"
	"github.com/zarrgw/zarrgw/core/meta"
	"github.com/zarrgw/zarrgw/core/ndarray"
	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/host/commands/transfer"
	"github.com/zarrgw/zarrgw/host/commands/transfer/journal"
	"github.com/zarrgw/zarrgw/host/commands/transfer/layout"
	"github.com/zarrgw/zarrgw/host/runtime/registry"
)

var opts = array.Options{Codecs: registry.Codecs()}

// source writes a v2 group with two arrays (one partly written) and
// returns its store.
func source(t *testing.T) store.Store {
	t.Helper()
	ctx := context.Background()
	s := store.NewMemory()
	if _, err := hierarchy.CreateGroup(ctx, s, "", meta.V2, json.RawMessage(`{"title":"t"}`)); err != nil {
		t.Fatal(err)
	}
	for i, shape := range [][]int{{37, 23}, {100}} {
		m := &meta.ArrayMeta{Format: meta.V2, Shape: shape, ChunkShape: []int{5, 7}[:len(shape)], DataType: dtype.Named("int32"),
			FillValue: []byte{0, 0, 0, 0}, ChunkKey: meta.ChunkKeyEncoding{Name: "v2", Separator: "."},
			Codecs:     []meta.Extension{{Name: "bytes", Configuration: json.RawMessage(`{"endian":"little"}`)}, {Name: "numcodecs.zlib", Configuration: json.RawMessage(`{"level":1}`)}},
			Attributes: json.RawMessage(`{"_ARRAY_DIMENSIONS":` + []string{`["y","x"]`, `["t"]`}[i] + `}`)}
		a, err := hierarchy.CreateArray(ctx, s, fmt.Sprintf("g/a%d", i), m, opts)
		if err != nil {
			t.Fatal(err)
		}
		counts := append([]int{}, shape...)
		counts[0] = shape[0] * 2 / 3
		data := ndarray.New(m.DataType, counts)
		for k := range data.Data {
			data.Data[k] = byte(k * 13)
		}
		if err := a.Write(ctx, grid.Box(make([]int, len(counts)), counts), data); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

func endpoint(name string, s store.Store) transfer.Endpoint {
	return transfer.Endpoint{Name: name, Store: s, Options: opts}
}

// sameKeys fails unless both stores hold the same keys and bytes.
func sameKeys(t *testing.T, a, b store.Store) {
	t.Helper()
	ctx := context.Background()
	ka, _ := store.ListAll(ctx, a, "")
	kb, _ := store.ListAll(ctx, b, "")
	if fmt.Sprint(ka) != fmt.Sprint(kb) {
		t.Fatalf("keys differ:\n%v\n%v", ka, kb)
	}
	for _, k := range ka {
		va, _ := a.Get(ctx, k, store.ByteRange{})
		vb, _ := b.Get(ctx, k, store.ByteRange{})
		if string(va.Data) != string(vb.Data) {
			t.Fatalf("%s differs", k)
		}
	}
}

// Without rewrite options every key is copied byte for byte.
func TestCopyKeys(t *testing.T) {
	src, dst := source(t), store.NewMemory()
	s, err := transfer.Run(context.Background(), endpoint("src", src), endpoint("dst", dst), transfer.Options{Jobs: 4})
	if err != nil {
		t.Fatal(err)
	}
	sameKeys(t, src, dst)
	if s.Copied == 0 || s.Failed != 0 {
		t.Fatalf("summary: %s", s)
	}
}

// A copy interrupted midway and run again with its journal copies only
// what the first run did not record, and ends identical.
func TestResumeKeys(t *testing.T) {
	ctx := context.Background()
	src := source(t)
	keys, _ := store.ListAll(ctx, src, "")
	dst := store.NewMemory()
	var sets atomic.Int64
	// the first run ends, as a killed process does, after half the writes
	first, crash := context.WithCancel(ctx)
	counting := func(limit int64) store.Store {
		return store.WithHook(dst, func(ctx context.Context, op, _ string, call func(context.Context) error) error {
			if op == "set" && sets.Add(1) > limit {
				crash()
				return ctx.Err()
			}
			return call(ctx)
		})
	}
	dir := t.TempDir()
	j, err := journal.Open(ctx, dir, "copy", nil)
	if err != nil {
		t.Fatal(err)
	}
	half := int64(len(keys) / 2)
	transfer.Run(first, endpoint("src", src), endpoint("dst", counting(half)), transfer.Options{Jobs: 1, Journal: j})
	j.Close() // as a killed process leaves it: what was flushed
	j, err = journal.Open(ctx, dir, "copy", nil)
	if err != nil {
		t.Fatal(err)
	}
	if j.Resumed() == 0 {
		t.Fatal("the journal recorded nothing of the first run")
	}
	sets.Store(0)
	s, err := transfer.Run(ctx, endpoint("src", src), endpoint("dst", counting(1<<30)), transfer.Options{Jobs: 4, Journal: j})
	if err != nil {
		t.Fatal(err)
	}
	sameKeys(t, src, dst)
	if s.Skipped == 0 || int(sets.Load()) > len(keys)-int(half)+1 {
		t.Fatalf("resumed copy: %s, %d writes for %d keys of which %d were done", s, sets.Load(), len(keys), half)
	}
}

// Rewritten to v3, rechunked and sharded, the arrays read the same; the
// metadata says v3, with dimension names from the v2 attributes.
func TestRewrite(t *testing.T) {
	ctx := context.Background()
	src := source(t)
	for _, o := range []transfer.Options{
		{Spec: layout.Spec{ToFormat: meta.V3}},
		{Spec: layout.Spec{ToFormat: meta.V3, Chunks: []int{8, 8}}},
		{Spec: layout.Spec{ToFormat: meta.V3, Shard: []int{10, 14}, InnerChunks: []int{5, 7}}, Consolidate: true},
		{Spec: layout.Spec{ToFormat: meta.V3, Codecs: []meta.Extension{{Name: "bytes", Configuration: json.RawMessage(`{"endian":"big"}`)}, {Name: "zstd"}}}, Stream: array.StreamOptions{MemoryBudget: 512}},
	} {
		if o.Shard != nil || o.Chunks != nil {
			o.Path = "g/a0" // 2-D shapes
		}
		dst := store.NewMemory()
		if _, err := transfer.Run(ctx, endpoint("src", src), endpoint("dst", dst), o); err != nil {
			t.Fatalf("%+v: %v", o, err)
		}
		paths := []string{"g/a0", "g/a1"}
		if o.Path != "" {
			paths = paths[:1]
		}
		for _, p := range paths {
			want, err := hierarchy.OpenArray(ctx, src, p, opts)
			if err != nil {
				t.Fatal(err)
			}
			got, err := hierarchy.OpenArray(ctx, dst, p, opts)
			if err != nil {
				t.Fatalf("%+v: %v", o, err)
			}
			w, _ := want.ReadAll(ctx)
			g, err := got.ReadAll(ctx)
			if err != nil || string(w.Data) != string(g.Data) {
				t.Fatalf("%+v: %s reads differently after the copy (%v)", o, p, err)
			}
			if got.Meta().Format != meta.V3 || got.Meta().DimensionNames == nil {
				t.Fatalf("%+v: %s: format %s, dimension names %v", o, p, got.Meta().Format, got.Meta().DimensionNames)
			}
		}
		root, err := hierarchy.Open(ctx, dst, "")
		if err != nil || root.Group == nil || root.Group.Format != meta.V3 {
			t.Fatalf("%+v: the root group: %v", o, err)
		}
		if o.Consolidate && root.Group.Consolidated == nil {
			t.Fatalf("%+v: no consolidated metadata", o)
		}
	}
	// found before anything is written, each array named
	dst := store.NewMemory()
	_, err := transfer.Run(ctx, endpoint("src", src), endpoint("dst", dst), transfer.Options{Spec: layout.Spec{Shard: []int{3, 3}}, Path: "g"})
	if err == nil || !strings.Contains(err.Error(), "--to-format 3") || !strings.Contains(err.Error(), "/g/a0") {
		t.Fatalf("sharding a v2 array without --to-format 3: %v", err)
	}
	if keys, _ := store.ListAll(ctx, dst, ""); len(keys) != 0 {
		t.Fatalf("a refused rewrite wrote %v", keys)
	}
}

// lossy is a destination that stores fewer bytes than it is given, and
// reports as its version either an MD5 (of the bytes given) or a token.
type lossy struct {
	*store.Memory
	md5Version bool
}

func (l *lossy) Set(ctx context.Context, key string, data []byte, cond store.Condition) (string, error) {
	v, err := l.Memory.Set(ctx, key, data[:len(data)/2], cond)
	if err != nil || !l.md5Version {
		return v, err
	}
	sum := md5.Sum(data[:len(data)/2])
	return hex.EncodeToString(sum[:]), nil
}

// Capabilities claim MD5 versions when the store gives them, as S3 does.
func (l *lossy) Capabilities() store.Capabilities {
	c := l.Memory.Capabilities()
	c.MD5Versions = l.md5Version
	return c
}

// A copy checks what the destination holds, by its MD5 ETag where it has
// one, else by its size: a destination that loses bytes fails the copy.
func TestCopyChecksDestination(t *testing.T) {
	for _, md5Version := range []bool{false, true} {
		dst := &lossy{Memory: store.NewMemory(), md5Version: md5Version}
		s, err := transfer.Run(context.Background(), endpoint("src", source(t)), endpoint("dst", dst), transfer.Options{Retries: 1})
		if err == nil && s.Failed == 0 {
			t.Fatalf("md5 versions %v: a lossy destination passed: %+v", md5Version, s)
		}
		want := "holds"
		if md5Version {
			want = "checksum"
		}
		if len(s.Failures) == 0 || !strings.Contains(s.Failures[0], want) {
			t.Fatalf("md5 versions %v: failures %v, want one saying %q", md5Version, s.Failures, want)
		}
	}
}

// A copy is named by what decides its output: the same copy again finds
// its journal, a copy with another destination or layout does not.
func TestCopyID(t *testing.T) {
	base := transfer.Options{Spec: layout.Spec{ChunksPerShard: 4}}
	id := transfer.CopyID("", "src.zarr", "dst.zarr", base)
	if again := transfer.CopyID("", "src.zarr", "dst.zarr", base); again != id {
		t.Fatalf("the same copy named %s, then %s", id, again)
	}
	abs, _ := filepath.Abs("src.zarr")
	if transfer.CopyID("", abs, "dst.zarr", base) != id {
		t.Error("a relative and an absolute path of one directory name two copies")
	}
	for name, other := range map[string]string{
		"destination": transfer.CopyID("", "src.zarr", "other.zarr", base),
		"layout":      transfer.CopyID("", "src.zarr", "dst.zarr", transfer.Options{Spec: layout.Spec{ChunksPerShard: 8}}),
		"codecs":      transfer.CopyID("", "src.zarr", "dst.zarr", transfer.Options{Spec: layout.Spec{ChunksPerShard: 4, Codecs: []meta.Extension{{Name: "zstd"}}}}),
		"memory":      transfer.CopyID("", "src.zarr", "dst.zarr", transfer.Options{Spec: layout.Spec{ChunksPerShard: 4}, Stream: array.StreamOptions{MemoryBudget: 1 << 20}}),
	} {
		if other == id {
			t.Errorf("a copy with another %s has the same journal", name)
		}
	}
}
