package roundtrip

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zarrgw/zarrgw/core/array"
	"github.com/zarrgw/zarrgw/core/dtype"
	"github.com/zarrgw/zarrgw/core/grid"
	"github.com/zarrgw/zarrgw/core/hierarchy"
	"github.com/zarrgw/zarrgw/core/meta"
	"github.com/zarrgw/zarrgw/core/ndarray"
	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/host/runtime/registry"
)

// streamCase is an array layout the streaming tests run over.
type streamCase struct {
	name   string
	dt     dtype.DataType
	codecs []meta.Extension
	// inner is the inner chunk shape of a sharded array (nil: unsharded).
	inner []int
}

func streamCases() []streamCase {
	var out []streamCase
	for _, c := range []chain{chains[0], chains[1], chains[2], chains[4], chains[10]} {
		for _, name := range fixedTypes {
			dt := dtype.Named(name)
			out = append(out, streamCase{name: c.name + "/" + name, dt: dt, codecs: c.codecs(dt)})
		}
	}
	for _, c := range stringChains {
		dt := dtype.Named("string")
		out = append(out, streamCase{name: c.name + "/string", dt: dt, codecs: c.codecs(dt)})
	}
	for _, name := range []string{"uint8", "float64", "string"} {
		dt := dtype.Named(name)
		out = append(out, streamCase{name: "sharded/" + name, dt: dt, inner: []int{2, 1, 2}})
	}
	return out
}

// shardingCodecs is a sharding_indexed chain with inner chunks of the
// given shape.
func shardingCodecs(dt dtype.DataType, inner []int) []meta.Extension {
	innerCodec := `{"name":"bytes","configuration":{"endian":"little"}}`
	if dt.Variable() {
		innerCodec = `{"name":"vlen-utf8","configuration":{}}`
	}
	shape, _ := json.Marshal(inner)
	return []meta.Extension{ext("sharding_indexed", fmt.Sprintf(`{"chunk_shape":%s,"codecs":[%s,{"name":"zstd","configuration":{"level":1}}],
		"index_codecs":[{"name":"bytes","configuration":{"endian":"little"}},{"name":"crc32c"}],"index_location":"end"}`, shape, innerCodec))}
}

// newStreamArray creates an array of random shape and chunking for c,
// filled with random data where it is stored.
func newStreamArray(t *testing.T, r *rand.Rand, c streamCase, s store.Store, path string) (*array.Array, *ndarray.Array) {
	t.Helper()
	ctx := context.Background()
	shape, chunks := make([]int, 3), make([]int, 3)
	codecs := c.codecs
	for i := range shape {
		shape[i] = 1 + r.Intn(11)
		chunks[i] = 1 + r.Intn(5)
		if c.inner != nil {
			chunks[i] = c.inner[i] * (1 + r.Intn(2))
		}
	}
	if c.inner != nil {
		codecs = shardingCodecs(c.dt, c.inner)
	}
	m := &meta.ArrayMeta{Format: meta.V3, Shape: shape, ChunkShape: chunks, DataType: c.dt,
		FillValue: elementBytes(randomArray(r, c.dt, []int{1})), Codecs: codecs,
		ChunkKey: meta.ChunkKeyEncoding{Name: "default", Separator: "/"}, Attributes: json.RawMessage("{}")}
	opts := array.Options{Codecs: registry.Codecs(), Concurrency: 1 + r.Intn(4)}
	a, err := hierarchy.CreateArray(ctx, s, path, m, opts)
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	data := randomArray(r, c.dt, shape)
	// leave some chunks unwritten: they read as fill values
	sel := grid.Box([]int{0, 0, 0}, shape)
	sel[0].Count = 1 + r.Intn(shape[0])
	part := ndarray.New(c.dt, sel.Counts())
	if err := ndarray.CopyRegion(part, grid.WholeSpans(part.Shape), data, spans(sel)); err != nil {
		t.Fatal(err)
	}
	if err := a.Write(ctx, sel, part); err != nil {
		t.Fatalf("write: %v", err)
	}
	return a, data
}

// randomBudget picks memory budgets from a few elements (slabs cut inside
// chunk rows, or inside single output rows) to more than the array.
func randomBudget(r *rand.Rand, dt dtype.DataType) int64 {
	elem := int64(dt.Size)
	if dt.Variable() {
		elem = 64
	}
	return elem * int64(2+r.Intn(3)) << uint(r.Intn(9))
}

// collect streams sel of a and concatenates the slabs.
func collect(t *testing.T, a *array.Array, sel grid.Selection, budget int64) *ndarray.Array {
	t.Helper()
	out := ndarray.New(a.Meta().DataType, []int{0})
	err := a.Stream(context.Background(), sel, array.StreamOptions{MemoryBudget: budget}, func(s *ndarray.Array) error {
		out.Data = append(out.Data, s.Data...)
		out.Strings = append(out.Strings, s.Strings...)
		return nil
	})
	if err != nil {
		t.Fatalf("stream %+v with budget %d: %v", sel, budget, err)
	}
	out.Shape = sel.Shape()
	return out
}

// A streamed read of any selection equals the in-memory read of it, for
// every data type, codec chains, strings and sharded arrays, whatever the
// memory budget (so slabs are cut at every level).
func TestStreamEqualsRead(t *testing.T) {
	ctx := context.Background()
	for _, c := range streamCases() {
		t.Run(c.name, func(t *testing.T) {
			r := rand.New(rand.NewSource(int64(len(c.name)) * 31))
			for iter := 0; iter < 3; iter++ {
				a, _ := newStreamArray(t, r, c, store.NewMemory(), "a")
				for k := 0; k < 6; k++ {
					sel := randomSelection(r, a.Shape())
					if k == 0 {
						sel = grid.All(a.Shape())
					}
					want, err := a.Read(ctx, sel)
					if err != nil {
						t.Fatal(err)
					}
					budget := randomBudget(r, c.dt)
					if got := collect(t, a, sel, budget); !sameElements(got, want) {
						t.Fatalf("shape %v chunks %v: stream of %+v (budget %d) differs from read", a.Shape(), a.Meta().ChunkShape, sel, budget)
					}
				}
			}
		})
	}
}

// A streamed write stores exactly what the in-memory write of the same
// data stores: the same keys with the same bytes.
func TestWriteStreamEqualsWrite(t *testing.T) {
	ctx := context.Background()
	for _, c := range streamCases() {
		t.Run(c.name, func(t *testing.T) {
			r := rand.New(rand.NewSource(int64(len(c.name)) * 17))
			for iter := 0; iter < 3; iter++ {
				seed := r.Int63()
				s1, s2 := store.NewMemory(), store.NewMemory()
				a1, _ := newStreamArray(t, rand.New(rand.NewSource(seed)), c, s1, "a")
				a2, _ := newStreamArray(t, rand.New(rand.NewSource(seed)), c, s2, "a")
				for k := 0; k < 3; k++ {
					sel := randomSelection(r, a1.Shape())
					data := randomArray(r, c.dt, sel.Counts())
					if err := a1.Write(ctx, sel, data); err != nil {
						t.Fatal(err)
					}
					budget := randomBudget(r, c.dt)
					src := &sliceSource{data: data}
					if err := a2.WriteStream(ctx, sel, array.StreamOptions{MemoryBudget: budget}, src.fill); err != nil {
						t.Fatalf("write stream %+v (budget %d): %v", sel, budget, err)
					}
					if src.next != data.Len() {
						t.Fatalf("write stream %+v took %d of %d elements", sel, src.next, data.Len())
					}
					if diff := diffStores(t, s1, s2); diff != "" {
						t.Fatalf("shape %v chunks %v: after writing %+v (budget %d): %s", a1.Shape(), a1.Meta().ChunkShape, sel, budget, diff)
					}
				}
			}
		})
	}
}

// sliceSource hands out the elements of data slab by slab.
type sliceSource struct {
	data *ndarray.Array
	next int
}

func (s *sliceSource) fill(slab *ndarray.Array) error {
	n := slab.Len()
	if s.next+n > s.data.Len() {
		return errors.New("asked for more elements than the selection holds")
	}
	if slab.DType.Variable() {
		copy(slab.Strings, s.data.Strings[s.next:])
	} else {
		k := slab.DType.Size
		copy(slab.Data, s.data.Data[s.next*k:(s.next+n)*k])
	}
	s.next += n
	return nil
}

// diffStores says how two stores differ ("" when they hold the same keys
// and bytes).
func diffStores(t *testing.T, a, b store.Store) string {
	ctx := context.Background()
	keys := map[string]bool{}
	for _, s := range []store.Store{a, b} {
		for k, err := range s.List(ctx, "") {
			if err != nil {
				t.Fatal(err)
			}
			keys[k] = true
		}
	}
	for k := range keys {
		va, ea := a.Get(ctx, k, store.ByteRange{})
		vb, eb := b.Get(ctx, k, store.ByteRange{})
		if (ea == nil) != (eb == nil) {
			return fmt.Sprintf("key %s: %v vs %v", k, ea, eb)
		}
		if string(va.Data) != string(vb.Data) {
			return fmt.Sprintf("key %s holds different bytes", k)
		}
	}
	return ""
}

// Streaming a 1 GiB array (fill values: no chunk is stored, so it costs
// no memory or disk of its own) keeps the live heap below twice the
// budget. Live, not allocated: garbage awaiting collection depends on how
// far the collector has got, which depends on the machine's load; what
// the stream holds on to does not. Every fourth slab forces a collection,
// so the live heap is measured while slabs are in use.
func TestStreamMemoryBounded(t *testing.T) {
	ctx := context.Background()
	const budget = 64 << 20
	m := &meta.ArrayMeta{Format: meta.V3, Shape: []int{32768, 32768}, ChunkShape: []int{1024, 1024},
		DataType: dtype.Named("uint8"), FillValue: []byte{7}, Codecs: []meta.Extension{ext("bytes", ""), ext("zstd", `{"level":1}`)},
		ChunkKey: meta.ChunkKeyEncoding{Name: "default", Separator: "/"}, Attributes: json.RawMessage("{}")}
	a, err := hierarchy.CreateArray(ctx, store.NewMemory(), "big", m, array.Options{Codecs: registry.Codecs()})
	if err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	base := liveHeapBytes()
	var peak atomic.Uint64
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() { // the collections the runtime makes by itself count too
		defer close(sampled)
		for {
			select {
			case <-stop:
				return
			case <-time.After(200 * time.Microsecond):
				peakMax(&peak, liveHeapBytes())
			}
		}
	}()
	var n, slabs int64
	err = a.Stream(ctx, grid.All(m.Shape), array.StreamOptions{MemoryBudget: budget}, func(s *ndarray.Array) error {
		if s.Data[0] != 7 || s.Data[len(s.Data)-1] != 7 {
			return errors.New("slab does not hold the fill value")
		}
		n += int64(len(s.Data))
		if slabs++; slabs%4 == 0 {
			runtime.GC()
			peakMax(&peak, liveHeapBytes())
		}
		return nil
	})
	close(stop)
	<-sampled
	if err != nil {
		t.Fatal(err)
	}
	if n != 1<<30 {
		t.Fatalf("streamed %d bytes, want 1 GiB", n)
	}
	grown := int64(peak.Load()) - int64(base)
	t.Logf("live heap grew by %d MiB at most streaming 1 GiB in %d slabs with a %d MiB budget", grown>>20, slabs, budget>>20)
	if slabs < 8 {
		t.Fatalf("%d slabs: too few to measure the heap while streaming", slabs)
	}
	if grown > 2*budget {
		t.Fatalf("live heap grew by %d MiB, more than twice the %d MiB budget", grown>>20, budget>>20)
	}
}

// liveHeapBytes is the heap the last collection found live.
func liveHeapBytes() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

func peakMax(p *atomic.Uint64, v uint64) {
	for {
		old := p.Load()
		if v <= old || p.CompareAndSwap(old, v) {
			return
		}
	}
}

// failingStore fails reads of one key with an error that is not
// "missing", as a broken disk or network would.
type failingStore struct {
	store.Store
	key string
}

func (f failingStore) Get(ctx context.Context, key string, r store.ByteRange) (store.Value, error) {
	if key == f.key {
		return store.Value{}, errors.New("disk on fire")
	}
	return f.Store.Get(ctx, key, r)
}

// A chunk that fails to read in the middle of a stream ends it with an
// error naming the array and chunk, after fewer slabs than the whole: never
// a short success, never fill values in its place.
func TestStreamFailsMidway(t *testing.T) {
	ctx := context.Background()
	s := store.NewMemory()
	m := &meta.ArrayMeta{Format: meta.V3, Shape: []int{64, 8}, ChunkShape: []int{4, 4},
		DataType: dtype.Named("int32"), Codecs: []meta.Extension{bytesCodec(dtype.Named("int32"), "little"), ext("zstd", `{"level":1}`)},
		ChunkKey: meta.ChunkKeyEncoding{Name: "default", Separator: "/"}, Attributes: json.RawMessage("{}")}
	opts := array.Options{Codecs: registry.Codecs()}
	a, err := hierarchy.CreateArray(ctx, s, "a", m, opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.WriteAll(ctx, randomArray(rand.New(rand.NewSource(1)), m.DataType, m.Shape)); err != nil {
		t.Fatal(err)
	}
	// without the optional operations of s, whose copy-free read would pass
	// the failing Get by
	broken, err := hierarchy.OpenArray(ctx, store.WithOptional(failingStore{Store: s, key: "a/c/9/1"}, store.Optional{}), "a", opts)
	if err != nil {
		t.Fatal(err)
	}
	var rows int
	err = broken.Stream(ctx, grid.All(m.Shape), array.StreamOptions{MemoryBudget: 4 * 4 * 8 * 2}, func(sl *ndarray.Array) error {
		rows += sl.Shape[0]
		return nil
	})
	if err == nil || !strings.Contains(err.Error(), "a/c/9/1") || !strings.Contains(err.Error(), "disk on fire") {
		t.Fatalf("stream over a failing chunk: %v", err)
	}
	if rows > 36 {
		t.Fatalf("%d rows were emitted, including the failing chunk's (rows 36-39)", rows)
	}
}

// countingStore counts the reads of each key and the bytes they return.
type countingStore struct {
	store.Store
	mu    sync.Mutex
	reads map[string]int
	bytes int64
}

func (c *countingStore) count(key string, n int) {
	c.mu.Lock()
	c.reads[key]++
	if strings.Contains(key, "/c/") {
		c.bytes += int64(n)
	}
	c.mu.Unlock()
}

func (c *countingStore) Get(ctx context.Context, key string, r store.ByteRange) (store.Value, error) {
	v, err := c.Store.Get(ctx, key, r)
	c.count(key, len(v.Data))
	return v, err
}

func (c *countingStore) GetInto(ctx context.Context, key string, dst []byte) (bool, error) {
	ok, err := store.GetInto(ctx, c.Store, key, dst)
	c.count(key, len(dst))
	return ok, err
}

// A sharded array streams each shard with a read or two per slab (index
// and data), never one per inner chunk; and a shard row too large for a
// slab is cut at inner chunk boundaries.
func TestStreamReadsShardsWhole(t *testing.T) {
	ctx := context.Background()
	dt := dtype.Named("uint16")
	m := &meta.ArrayMeta{Format: meta.V3, Shape: []int{64, 64}, ChunkShape: []int{16, 64}, DataType: dt,
		Codecs: shardingCodecs(dt, []int{4, 16}), ChunkKey: meta.ChunkKeyEncoding{Name: "default", Separator: "/"}, Attributes: json.RawMessage("{}")}
	base := store.NewMemory()
	a, err := hierarchy.CreateArray(ctx, base, "s", m, array.Options{Codecs: registry.Codecs()})
	if err != nil {
		t.Fatal(err)
	}
	data := randomArray(rand.New(rand.NewSource(5)), dt, m.Shape)
	if err := a.WriteAll(ctx, data); err != nil {
		t.Fatal(err)
	}
	var stored int64
	for k, err := range base.List(ctx, "s/c/") {
		if err != nil {
			t.Fatal(err)
		}
		info, _ := base.Stat(ctx, k)
		stored += info.Size
	}
	for _, c := range []struct {
		budget   int64
		maxReads int // reads of one shard over the whole stream
	}{
		{2 * 2 * 16 * 64 * 2, 1}, // slabs of two shard rows: each shard read whole, once
		{2 * 4 * 64 * 2, 1 + 4},  // slabs of one inner chunk row: the index, then 4 parts
		{2 * 6 * 64 * 2, 1 + 4},  // 6 rows fit: cut at inner chunk rows (4 each), never within one
	} {
		cs := &countingStore{Store: base, reads: map[string]int{}}
		b, err := hierarchy.OpenArray(ctx, cs, "s", array.Options{Codecs: registry.Codecs()})
		if err != nil {
			t.Fatal(err)
		}
		got := collect(t, b, grid.All(m.Shape), c.budget)
		if !sameElements(got, data) {
			t.Fatalf("budget %d: the stream differs", c.budget)
		}
		most := 0
		for k, n := range cs.reads {
			if strings.Contains(k, "/c/") {
				most = max(most, n)
			}
		}
		t.Logf("budget %d: a shard read at most %d times, %d bytes of %d stored", c.budget, most, cs.bytes, stored)
		if most > c.maxReads || most == 0 {
			t.Errorf("budget %d: a shard read %d times, want at most %d", c.budget, most, c.maxReads)
		}
		// inner chunks read once: the shards' bytes, and their index again
		if float64(cs.bytes) > 1.1*float64(stored) {
			t.Errorf("budget %d: %d bytes read of %d stored: inner chunks were read twice", c.budget, cs.bytes, stored)
		}
	}
}
