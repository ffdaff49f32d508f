package array

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/dtype"
	"github.com/zarrgw/zarrgw/core/grid"
	"github.com/zarrgw/zarrgw/core/meta"
	"github.com/zarrgw/zarrgw/core/ndarray"
	"github.com/zarrgw/zarrgw/core/store"
)

// streamXor is xorCodec that also decodes as a stream, counting the
// streams that decode anything (a read opens one to see its memory).
type streamXor struct {
	xorCodec
	mu     sync.Mutex
	opens  int
	memory int64 // each stream's Memory (0: 1)
}

func (x *streamXor) DecodeStream(_ context.Context, _ codec.Spec, src io.Reader) (codec.DecodedStream, error) {
	var head [4]byte
	if _, err := io.ReadFull(src, head[:]); err != nil {
		return nil, fmt.Errorf("%w: short header", codec.ErrCorrupt)
	}
	return &xorStream{x: x, r: io.LimitReader(src, int64(binary.LittleEndian.Uint32(head[:]))), memory: max(x.memory, 1)}, nil
}

type xorStream struct {
	x       *streamXor
	r       io.Reader
	counted bool
	memory  int64
}

func (s *xorStream) Read(b []byte) (int, error) {
	if !s.counted {
		s.counted = true
		s.x.mu.Lock()
		s.x.opens++
		s.x.mu.Unlock()
	}
	n, err := s.r.Read(b)
	for i := range b[:n] {
		b[i] ^= 0x5a
	}
	return n, err
}
func (*xorStream) Close() error    { return nil }
func (s *xorStream) Memory() int64 { return s.memory }

// countingStore counts the bytes read of each key.
type countingStore struct {
	store.Store
	mu    sync.Mutex
	bytes map[string]int64
}

func newCountingStore() *countingStore {
	return &countingStore{Store: store.NewMemory(), bytes: map[string]int64{}}
}

func (c *countingStore) count(key string, n int) {
	c.mu.Lock()
	c.bytes[key] += int64(n)
	c.mu.Unlock()
}

func (c *countingStore) Get(ctx context.Context, key string, r store.ByteRange) (store.Value, error) {
	v, err := c.Store.Get(ctx, key, r)
	c.count(key, len(v.Data))
	return v, err
}

func (c *countingStore) GetInto(ctx context.Context, key string, dst []byte) (bool, error) {
	ok, err := c.Store.GetInto(ctx, key, dst)
	if ok {
		c.count(key, len(dst))
	}
	return ok, err
}

func (c *countingStore) reset() {
	c.mu.Lock()
	c.bytes = map[string]int64{}
	c.mu.Unlock()
}

// elementBytes is element i of the test arrays: i, little-endian, cut
// to size bytes.
func elementBytes(i, size int) []byte {
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], uint64(i))
	return b[:size]
}

// newStreamArray creates an array of the given type, shape and chunks
// with the chain codecs (resolved by r) in s, whose element i (C order)
// is elementBytes(i).
func newStreamArray(t *testing.T, s store.Store, typ string, shape, chunks []int, codecs []meta.Extension, r testResolver, opts Options) *Array {
	t.Helper()
	dt := dtype.Named(typ)
	m := &meta.ArrayMeta{
		Format: meta.V3, Shape: shape, ChunkShape: chunks, DataType: dt,
		FillValue: make([]byte, dt.Size), ChunkKey: meta.ChunkKeyEncoding{Name: "default", Separator: "/"},
		Codecs: codecs, Attributes: json.RawMessage(`{}`),
	}
	opts.Codecs = r
	a, err := New(t.Context(), s, "", m, opts)
	if err != nil {
		t.Fatal(err)
	}
	all := ndarray.New(dt, shape)
	for i := range ndarray.NumElements(shape) {
		copy(all.Data[i*dt.Size:], elementBytes(i, dt.Size))
	}
	if err := a.Write(t.Context(), grid.All(shape), all); err != nil {
		t.Fatal(err)
	}
	return a
}

// expected is the selection's elements by the formula, with the elements
// of missing chunks zero.
func expected(a *Array, sel grid.Selection, missing map[string]bool) []byte {
	shape, size := a.Shape(), a.meta.DataType.Size
	var out []byte
	idx := make([]int, len(sel))
	counts := sel.Counts()
	if ndarray.NumElements(counts) == 0 {
		return nil
	}
	for {
		flat := 0
		coords := make([]int, len(sel))
		for d, k := range idx {
			g := sel[d].Start + k*sel[d].Step
			flat = flat*shape[d] + g
			coords[d] = g / a.meta.ChunkShape[d]
		}
		if missing[a.ChunkKey(coords)] {
			out = append(out, make([]byte, size)...)
		} else {
			out = append(out, elementBytes(flat, size)...)
		}
		if !next(idx, counts) {
			return out
		}
	}
}

// checkStream streams sel within budget and checks the elements against
// the formula (missing chunks: zeros).
func checkStream(t *testing.T, a *Array, sel grid.Selection, budget int64, missing map[string]bool) {
	t.Helper()
	got, err := streamSel(t, a, sel, budget)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(expected(a, sel, missing)) {
		t.Fatal("streamed elements differ from the formula")
	}
}

func streamSel(t *testing.T, a *Array, sel grid.Selection, budget int64) ([]byte, error) {
	t.Helper()
	var got []byte
	err := a.Stream(t.Context(), sel, StreamOptions{MemoryBudget: budget}, func(s *ndarray.Array) error {
		got = append(got, s.Data...)
		return nil
	})
	return got, err
}

var streamCases = []struct {
	name          string
	typ           string
	shape, chunks []int
}{
	{"3d uint16 edge chunks", "uint16", []int{9, 7, 5}, []int{4, 3, 5}},
	{"2d int32", "int32", []int{13, 6}, []int{5, 4}},
	{"1d uint8 chunks of 10", "uint8", []int{37}, []int{10}},
	{"4d float64", "float64", []int{5, 3, 2, 4}, []int{4, 2, 2, 3}},
}

// cuttingBudget is a budget whose slabs cut the chunks along the first
// dimension: half of it is less than their rows.
func cuttingBudget(a *Array) int64 {
	shape := a.Shape()
	return int64(a.meta.ChunkShape[0] * ndarray.NumElements(shape[1:]) * a.meta.DataType.Size)
}

// fileStore is a memory store whose values are also read as files (as
// the fs store's are): a stream reads its chunk from the file as it goes,
// holding none of it.
type fileStore struct {
	*store.Memory
	dir string
}

func (f fileStore) Capabilities() store.Capabilities {
	c := f.Memory.Capabilities()
	c.File = true
	return c
}

func (f fileStore) OpenFile(ctx context.Context, key string, _ []byte) (*os.File, store.Info, error) {
	v, err := f.Get(ctx, key, store.ByteRange{})
	if err != nil {
		return nil, store.Info{}, err
	}
	name := filepath.Join(f.dir, strings.ReplaceAll(key, "/", "_"))
	if err := os.WriteFile(name, v.Data, 0o600); err != nil {
		return nil, store.Info{}, err
	}
	file, err := os.Open(name)
	return file, store.Info{Size: int64(len(v.Data))}, err
}

// A compressed chunk cut across slabs is opened once as a stream and
// never decoded whole: every chunk of these arrays spans several slabs.
func TestStreamDecodesEachChunkOnce(t *testing.T) {
	for _, c := range streamCases {
		t.Run(c.name, func(t *testing.T) {
			x := &streamXor{}
			// one worker: the last part of a chunk row is read before
			// the first of the next, so their streams are never open at
			// once and the allowance holds exactly a chunk row
			a := newStreamArray(t, fileStore{store.NewMemory(), t.TempDir()}, c.typ, c.shape, c.chunks,
				[]meta.Extension{{Name: "raw"}, {Name: "xor"}}, testResolver{"raw": rawCodec{}, "xor": x}, Options{Concurrency: 1})
			x.dsts, x.opens = nil, 0
			sel := grid.All(c.shape)
			checkStream(t, a, sel, cuttingBudget(a), nil)
			// every chunk is stored and decoded at least once: as many
			// decodes as chunks is none twice. A chunk that one slab
			// holds whole (the edge of the first dimension, here) is
			// decoded whole, as before; the others are streams.
			n := a.grid.NumChunks()
			if x.opens+len(x.dsts) != n || x.opens < n/2 {
				t.Fatalf("%d chunks: %d streams opened, %d whole decodes", n, x.opens, len(x.dsts))
			}
		})
	}
}

// When a slab's streams would hold more than the budget leaves them, the
// read keeps the largest slabs instead (each chunk then read whole by each
// of the few slabs that cut it), rather than small slabs whose every part
// finds no room and reads its chunk whole.
func TestStreamKeepsLargeSlabsWhenStreamsDoNotFit(t *testing.T) {
	x := &streamXor{memory: 1 << 40}
	shape, chunks := []int{16, 6}, []int{8, 3}
	a := newStreamArray(t, fileStore{store.NewMemory(), t.TempDir()}, "uint16", shape, chunks,
		[]meta.Extension{{Name: "raw"}, {Name: "xor"}}, testResolver{"raw": rawCodec{}, "xor": x}, Options{})
	x.dsts, x.opens = nil, 0
	budget := cuttingBudget(a) // slabs of half a chunk row: 2 per chunk
	checkStream(t, a, grid.All(shape), budget, nil)
	if n := a.grid.NumChunks(); x.opens != 0 || len(x.dsts) != 2*n {
		t.Fatalf("%d chunks: %d streams, %d whole decodes; want 0 and %d", n, x.opens, len(x.dsts), 2*n)
	}
}

// A raw chunk cut across slabs is read in parts: no byte twice.
func TestStreamReadsRawChunksOnce(t *testing.T) {
	for _, c := range streamCases {
		t.Run(c.name, func(t *testing.T) {
			s := newCountingStore()
			a := newStreamArray(t, s, c.typ, c.shape, c.chunks, []meta.Extension{{Name: "raw"}}, testResolver{"raw": rawCodec{}}, Options{})
			s.reset()
			sel := grid.All(c.shape)
			checkStream(t, a, sel, cuttingBudget(a), nil)
			want := int64(ndarray.NumElements(c.chunks) * a.meta.DataType.Size)
			for key, n := range s.bytes {
				if strings.HasSuffix(key, ".json") {
					continue
				}
				if n > want {
					t.Fatalf("%s: %d bytes read, more than the chunk's %d", key, n, want)
				}
			}
		})
	}
}

// Selections with offsets and steps, and missing chunks (the fill
// value), read the formula's elements through streams, raw and
// compressed, and through the paths they fall back to.
func TestStreamSelectionsAndMissingChunks(t *testing.T) {
	shape, chunks := []int{11, 9, 6}, []int{4, 4, 3}
	sels := map[string]grid.Selection{
		"offsets":   {{Start: 1, Step: 1, Count: 9}, {Start: 2, Step: 1, Count: 6}, {Start: 1, Step: 1, Count: 5}},
		"steps":     {{Start: 0, Step: 2, Count: 6}, {Start: 1, Step: 3, Count: 3}, {Start: 0, Step: 1, Count: 6}},
		"dropped":   {{Start: 5, Step: 1, Count: 1, Drop: true}, {Start: 0, Step: 1, Count: 9}, {Start: 0, Step: 2, Count: 3}},
		"big steps": {{Start: 1, Step: 5, Count: 2}, {Start: 0, Step: 1, Count: 9}, {Start: 2, Step: 1, Count: 4}},
		"empty":     {{Start: 0, Step: 1, Count: 11}, {Start: 3, Step: 1, Count: 0}, {Start: 0, Step: 1, Count: 6}},
	}
	for _, chain := range []string{"raw", "xor"} {
		for name, sel := range sels {
			for _, budget := range []int64{2 * 6 * 2, 8 * 9 * 6 * 2, 1 << 20} {
				t.Run(fmt.Sprintf("%s/%s/%d", chain, name, budget), func(t *testing.T) {
					exts := []meta.Extension{{Name: "raw"}}
					if chain == "xor" {
						exts = append(exts, meta.Extension{Name: "xor"})
					}
					s := store.NewMemory()
					a := newStreamArray(t, s, "uint16", shape, chunks, exts, testResolver{"raw": rawCodec{}, "xor": &streamXor{}}, Options{})
					missing := map[string]bool{a.ChunkKey([]int{1, 0, 1}): true, a.ChunkKey([]int{2, 2, 0}): true}
					for k := range missing {
						if err := s.Erase(t.Context(), k); err != nil {
							t.Fatal(err)
						}
					}
					checkStream(t, a, sel, budget, missing)
				})
			}
		}
	}
}

// A stored chunk that is truncated, or longer than it should be, fails
// the read mid-stream with an error naming the array and the key.
func TestStreamCorruptChunks(t *testing.T) {
	for _, c := range []struct {
		chain string
		edit  func([]byte) []byte
		want  string
	}{
		{"raw", func(b []byte) []byte { return b[:len(b)-3] }, "bytes, want"},
		{"raw", func(b []byte) []byte { return append(b, 1, 2) }, "bytes, want"},
		{"xor", func(b []byte) []byte { return b[:len(b)/2] }, "ends"},
		{"xor", func(b []byte) []byte { // a header that claims more
			b = append(b, 7, 7)
			binary.LittleEndian.PutUint32(b, uint32(len(b)-4))
			return b
		}, "more than"},
	} {
		t.Run(c.chain+"/"+c.want, func(t *testing.T) {
			exts := []meta.Extension{{Name: "raw"}}
			if c.chain == "xor" {
				exts = append(exts, meta.Extension{Name: "xor"})
			}
			s := fileStore{store.NewMemory(), t.TempDir()}
			shape := []int{12, 8}
			a := newStreamArray(t, s, "uint16", shape, []int{6, 8}, exts, testResolver{"raw": rawCodec{}, "xor": &streamXor{}}, Options{})
			key := a.ChunkKey([]int{1, 0})
			v, err := s.Get(t.Context(), key, store.ByteRange{})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := s.Set(t.Context(), key, c.edit(append([]byte(nil), v.Data...)), store.Condition{}); err != nil {
				t.Fatal(err)
			}
			_, err = streamSel(t, a, grid.All(shape), cuttingBudget(a))
			if err == nil || !errors.Is(err, codec.ErrCorrupt) || !strings.Contains(err.Error(), key) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want a corrupt-chunk error naming %s (%q)", err, key, c.want)
			}
		})
	}
}
