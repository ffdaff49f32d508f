package sharding

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/zarrgw/zarrgw/core/array"
	"github.com/zarrgw/zarrgw/core/dtype"
	"github.com/zarrgw/zarrgw/core/grid"
	"github.com/zarrgw/zarrgw/core/meta"
	"github.com/zarrgw/zarrgw/core/ndarray"
	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/host/runtime/registry"
	"github.com/zarrgw/zarrgw/plugins/stores/fsstore"
)

var ctx = context.Background()

func opts() array.Options {
	return array.Options{Codecs: registry.Codecs(), Transformers: registry.Transformers()}
}

func ext(name, config string) meta.Extension {
	e := meta.Extension{Name: name, MustUnderstand: true}
	if config != "" {
		e.Configuration = json.RawMessage(config)
	}
	return e
}

func ints(v []int) string { b, _ := json.Marshal(v); return string(b) }

const crcIndex = `[{"name":"bytes","configuration":{"endian":"little"}},{"name":"crc32c"}]`

// shardingCodec is a sharding_indexed codec entry with inner chunk shape
// inner and the given inner codecs (JSON list).
func shardingCodec(inner []int, codecs, location string) meta.Extension {
	return ext("sharding_indexed", fmt.Sprintf(`{"chunk_shape":%s,"codecs":%s,"index_codecs":%s,"index_location":%q}`,
		ints(inner), codecs, crcIndex, location))
}

// shardedMeta is a v3 array sharded by the codec.
func shardedMeta(dt dtype.DataType, shape, shardShape, inner []int, codecs, location string) *meta.ArrayMeta {
	return &meta.ArrayMeta{
		Format: meta.V3, Shape: shape, ChunkShape: shardShape, DataType: dt, FillValue: make([]byte, dt.Size),
		ChunkKey: meta.ChunkKeyEncoding{Name: "default", Separator: "/"},
		Codecs:   []meta.Extension{shardingCodec(inner, codecs, location)}, Attributes: json.RawMessage("{}"),
	}
}

// transformedMeta is a v3 array whose chunks the storage transformer
// groups cps to a shard.
func transformedMeta(dt dtype.DataType, shape, chunks, cps []int, codecs []meta.Extension) *meta.ArrayMeta {
	return &meta.ArrayMeta{
		Format: meta.V3, Shape: shape, ChunkShape: chunks, DataType: dt, FillValue: make([]byte, dt.Size),
		ChunkKey: meta.ChunkKeyEncoding{Name: "default", Separator: "/"}, Codecs: codecs,
		StorageTransformers: []meta.Extension{ext("sharding", fmt.Sprintf(`{"chunks_per_shard":%s}`, ints(cps)))},
		Attributes:          json.RawMessage("{}"),
	}
}

func bytesLE(dt dtype.DataType) meta.Extension {
	if dt.Size == 1 {
		return ext("bytes", "")
	}
	return ext("bytes", `{"endian":"little"}`)
}

func newFS(t testing.TB) *fsstore.Store {
	t.Helper()
	// Without directory fsyncs: these tests check behaviour, not
	// durability, and share a disk with other work.
	s, err := fsstore.New(t.TempDir(), fsstore.WithDirSync(false))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func randomArray(r *rand.Rand, dt dtype.DataType, shape []int) *ndarray.Array {
	a := ndarray.New(dt, shape)
	for i := range a.Data {
		a.Data[i] = byte(r.IntN(256))
	}
	// Runs of zeros leave some inner chunks at the fill value.
	if r.IntN(2) == 0 && len(a.Data) > 0 {
		start := r.IntN(len(a.Data))
		clear(a.Data[start:min(len(a.Data), start+r.IntN(len(a.Data)))])
	}
	return a
}

func randomSelection(r *rand.Rand, shape []int) grid.Selection {
	sel := make(grid.Selection, len(shape))
	for i, n := range shape {
		start := r.IntN(n)
		step := 1
		if r.IntN(3) == 0 {
			step = 1 + r.IntN(3)
		}
		count := 1 + r.IntN((n-1-start)/step+1)
		sel[i] = grid.Dim{Start: start, Step: step, Count: count, Drop: count == 1 && r.IntN(4) == 0}
	}
	return sel
}

func spans(sel grid.Selection) []grid.Span {
	out := make([]grid.Span, len(sel))
	for i, d := range sel {
		out[i] = grid.Span{Start: d.Start, Step: d.Step, Count: d.Count}
	}
	return out
}

// expect returns the selected part of ref.
func expect(ref *ndarray.Array, sel grid.Selection) *ndarray.Array {
	want := ndarray.New(ref.DType, sel.Counts())
	if err := ndarray.CopyRegion(want, grid.WholeSpans(want.Shape), ref, spans(sel)); err != nil {
		panic(err)
	}
	return want
}

// counting wraps a store and counts reads per key and bytes read.
type counting struct {
	store.Store
	gets, bytes atomic.Int64
	mu          sync.Mutex
	log         []string
}

func (c *counting) Get(ctx context.Context, key string, r store.ByteRange) (store.Value, error) {
	v, err := c.Store.Get(ctx, key, r)
	if !strings.HasSuffix(key, "zarr.json") {
		c.gets.Add(1)
		c.bytes.Add(int64(len(v.Data)))
		c.mu.Lock()
		c.log = append(c.log, fmt.Sprintf("%s %s (%d bytes)", key, r, len(v.Data)))
		c.mu.Unlock()
	}
	return v, err
}

func (c *counting) reset() {
	c.gets.Store(0)
	c.bytes.Store(0)
	c.mu.Lock()
	c.log = nil
	c.mu.Unlock()
}

// racy wraps a store to make lost updates reproducible: the first n whole
// reads of key wait for each other, so n read-modify-write cycles all
// start from the same value; with honour false it also claims no
// conditional writes and drops the conditions it is given.
type racy struct {
	store.Store
	key     string
	honour  bool
	mu      sync.Mutex
	waiting int
	release chan struct{}
}

func newRacy(s store.Store, key string, n int, honour bool) *racy {
	return &racy{Store: s, key: key, honour: honour, waiting: n, release: make(chan struct{})}
}

func (r *racy) Get(ctx context.Context, key string, br store.ByteRange) (store.Value, error) {
	v, err := r.Store.Get(ctx, key, br)
	if key == r.key && br.Kind == store.Whole {
		r.mu.Lock()
		if r.waiting > 0 {
			r.waiting--
			if r.waiting == 0 {
				close(r.release)
			}
		}
		r.mu.Unlock()
		<-r.release
	}
	return v, err
}

func (r *racy) Capabilities() store.Capabilities {
	c := r.Store.Capabilities()
	c.ConditionalWrite = c.ConditionalWrite && r.honour
	c.Optional = store.Optional{} // reads and writes go through Get and Set
	return c
}

func (r *racy) Set(ctx context.Context, key string, data []byte, cond store.Condition) (string, error) {
	if !r.honour {
		cond = store.Condition{}
	}
	return r.Store.Set(ctx, key, data, cond)
}

func newRand() *rand.Rand { return rand.New(rand.NewPCG(99, 100)) }
