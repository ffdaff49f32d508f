package transfer_test

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/zarrgw/zarrgw/core/array"
	"github.com/zarrgw/zarrgw/core/dtype"
	"github.com/zarrgw/zarrgw/core/hierarchy"
	"github.com/zarrgw/zarrgw/core/meta"
	"github.com/zarrgw/zarrgw/core/ndarray"
	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/host/commands/transfer"
	"github.com/zarrgw/zarrgw/host/commands/transfer/journal"
	"github.com/zarrgw/zarrgw/host/commands/transfer/layout"
)

// formulaShape is the shape of formulaSource's array: no length a
// multiple of any chunk length below, so every grid has edge chunks.
var formulaShape = []int{19, 13, 11}

// formula is the value of formulaSource's element (i, j, k).
func formula(i, j, k int) uint16 { return uint16(i*1031 + j*37 + k*3 + 1) }

// formulaSource is a v3 array "a" of uint16 (zstd, chunks 4x5x3) whose
// elements are formula's.
func formulaSource(t *testing.T) store.Store {
	t.Helper()
	ctx := context.Background()
	s := store.NewMemory()
	m := &meta.ArrayMeta{Format: meta.V3, Shape: formulaShape, ChunkShape: []int{4, 5, 3}, DataType: dtype.Named("uint16"),
		FillValue: []byte{0, 0}, ChunkKey: meta.ChunkKeyEncoding{Name: "default", Separator: "/"},
		Codecs: []meta.Extension{{Name: "bytes", Configuration: json.RawMessage(`{"endian":"little"}`)}, {Name: "zstd"}}}
	a, err := hierarchy.CreateArray(ctx, s, "a", m, opts)
	if err != nil {
		t.Fatal(err)
	}
	data := ndarray.New(m.DataType, formulaShape)
	n := 0
	for i := range formulaShape[0] {
		for j := range formulaShape[1] {
			for k := range formulaShape[2] {
				binary.LittleEndian.PutUint16(data.Data[2*n:], formula(i, j, k))
				n++
			}
		}
	}
	if err := a.WriteAll(ctx, data); err != nil {
		t.Fatal(err)
	}
	return s
}

// checkFormula fails unless array "a" of s holds formula's values.
func checkFormula(t *testing.T, s store.Store) {
	t.Helper()
	ctx := context.Background()
	a, err := hierarchy.OpenArray(ctx, s, "a", opts)
	if err != nil {
		t.Fatal(err)
	}
	data, err := a.ReadAll(ctx)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for i := range formulaShape[0] {
		for j := range formulaShape[1] {
			for k := range formulaShape[2] {
				if got, want := binary.LittleEndian.Uint16(data.Data[2*n:]), formula(i, j, k); got != want {
					t.Fatalf("element (%d, %d, %d) is %d, want %d", i, j, k, got, want)
				}
				n++
			}
		}
	}
}

// setCounter counts the writes of each key of the store it wraps, and
// can stop the copy (cancel) after a number of chunk writes.
type setCounter struct {
	store.Store
	mu     sync.Mutex
	sets   map[string]int
	chunks int
	stopAt int
	cancel func()
}

func newSetCounter(s store.Store) *setCounter { return &setCounter{Store: s, sets: map[string]int{}} }

func (c *setCounter) Set(ctx context.Context, key string, data []byte, cond store.Condition) (string, error) {
	v, err := c.Store.Set(ctx, key, data, cond)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sets[key]++
	if strings.Contains(key, "/c/") {
		c.chunks++
		if c.stopAt > 0 && c.chunks == c.stopAt {
			c.cancel()
		}
	}
	return v, err
}

// chunkKeys are the chunk keys written, with the times each was.
func (c *setCounter) chunkKeys() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := map[string]int{}
	for k, n := range c.sets {
		if strings.Contains(k, "/c/") {
			out[k] = n
		}
	}
	return out
}

// A rewrite writes each chunk (shard) of the new grid once, whole, from
// the elements the source holds, whatever the two grids: the new chunks
// across the source's, the same chunks with other codecs, shards of the
// source's chunks, shards of other inner chunks; and, within a memory
// budget too small for a whole shard, in pieces of inner chunks. The
// values are checked against the formula the source was written from.
func TestRewriteWritesWholeChunks(t *testing.T) {
	zstd := []meta.Extension{{Name: "bytes", Configuration: json.RawMessage(`{"endian":"big"}`)}, {Name: "zstd", Configuration: json.RawMessage(`{"level":1}`)}}
	cases := []struct {
		name   string
		opts   transfer.Options
		chunks int // chunk keys of the new grid
		once   bool
	}{
		{"other grid", transfer.Options{Spec: layout.Spec{Chunks: []int{6, 4, 5}}}, 4 * 4 * 3, true},
		{"same grid, other codecs", transfer.Options{Spec: layout.Spec{Codecs: zstd}}, 5 * 3 * 4, true},
		{"shards of the source's chunks", transfer.Options{Spec: layout.Spec{Shard: []int{8, 10, 6}, InnerChunks: []int{4, 5, 3}}}, 3 * 2 * 2, true},
		{"shards of other inner chunks", transfer.Options{Spec: layout.Spec{Shard: []int{10, 6, 8}, InnerChunks: []int{5, 3, 4}}}, 2 * 3 * 2, true},
		// 480 bytes a shard, 120 an inner chunk: pieces of inner chunks
		{"shards in pieces", transfer.Options{Spec: layout.Spec{Shard: []int{10, 6, 4}, InnerChunks: []int{5, 3, 4}}, Stream: array.StreamOptions{MemoryBudget: 600}}, 2 * 3 * 3, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dst := newSetCounter(store.NewMemory())
			s, err := transfer.Run(context.Background(), endpoint("src", formulaSource(t)), endpoint("dst", dst), c.opts)
			if err != nil {
				t.Fatal(err)
			}
			checkFormula(t, dst)
			keys := dst.chunkKeys()
			if len(keys) != c.chunks || s.Copied != c.chunks+2 {
				t.Fatalf("%d chunk keys written, %d copied (documents included): want the %d chunks of the new grid and the two documents", len(keys), s.Copied, c.chunks)
			}
			pieces := 0
			for k, n := range keys {
				if c.once && n != 1 {
					t.Errorf("chunk %s written %d times: want it written once, whole", k, n)
				}
				pieces += n
			}
			if !c.once && pieces == len(keys) {
				t.Errorf("a budget smaller than a shard wrote every shard once: want pieces")
			}
		})
	}
}

// A rewrite stopped after some chunks and run again with its journal
// skips the chunks the journal recorded (their keys not written again)
// and ends with every value in place; a journal of an older version,
// holding the slabs it rewrote arrays in, makes no chunk count as done.
func TestRewriteResumesByChunk(t *testing.T) {
	ctx := context.Background()
	src := formulaSource(t)
	o := transfer.Options{Spec: layout.Spec{Chunks: []int{6, 4, 5}}, Jobs: 1}
	const total = 4 * 4 * 3
	dir := t.TempDir()
	j, err := journal.Open(ctx, dir, "copy", nil)
	if err != nil {
		t.Fatal(err)
	}
	o.Journal = j
	dst := newSetCounter(store.NewMemory())
	stopped, cancel := context.WithCancel(ctx)
	dst.stopAt, dst.cancel = 5, cancel
	if _, err := transfer.Run(stopped, endpoint("src", src), endpoint("dst", dst), o); !errors.Is(err, context.Canceled) {
		t.Fatalf("the stopped copy: %v, want it stopped", err)
	}
	done := j.Count("c ")
	if done < 4 || done >= total {
		t.Fatalf("the stopped copy recorded %d chunks, want the 4 or 5 it finished", done)
	}
	j.Close()
	if j, err = journal.Open(ctx, dir, "copy", nil); err != nil {
		t.Fatal(err)
	}
	o.Journal = j
	recorded := j.Resumed() // the chunks and the root group's document
	again := newSetCounter(dst.Store)
	s, err := transfer.Run(ctx, endpoint("src", src), endpoint("dst", again), o)
	if err != nil {
		t.Fatal(err)
	}
	if s.Skipped != recorded || len(again.chunkKeys()) != total-done {
		t.Fatalf("the rerun skipped %d and wrote %d chunks: want the %d entries recorded skipped (%d chunks) and the other %d chunks written",
			s.Skipped, len(again.chunkKeys()), recorded, done, total-done)
	}
	checkFormula(t, again)

	// an older version's journal: slabs, which no chunk is
	old, err := journal.Open(ctx, t.TempDir(), "old", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range []string{transfer.SlabEntry + "a 0", transfer.SlabEntry + "a 1"} {
		if err := old.Record(e, "100"); err != nil {
			t.Fatal(err)
		}
	}
	o.Journal = old
	fresh := newSetCounter(store.NewMemory())
	if s, err = transfer.Run(ctx, endpoint("src", src), endpoint("dst", fresh), o); err != nil || s.Skipped != 0 || len(fresh.chunkKeys()) != total {
		t.Fatalf("over a journal of slabs: %v, %s, %d chunks written: want all %d written", err, s, len(fresh.chunkKeys()), total)
	}
	checkFormula(t, fresh)
}
