package sharding

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/zarrgw/zarrgw/core/array"
	"github.com/zarrgw/zarrgw/core/dtype"
	"github.com/zarrgw/zarrgw/core/grid"
	"github.com/zarrgw/zarrgw/core/hierarchy"
	"github.com/zarrgw/zarrgw/core/meta"
	"github.com/zarrgw/zarrgw/core/ndarray"
	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/plugins/transformers/shardtransformer"
)

var innerChains = []string{
	`[{"name":"bytes","configuration":{"endian":"little"}}]`,
	`[{"name":"bytes","configuration":{"endian":"big"}},{"name":"gzip","configuration":{"level":1}}]`,
	`[{"name":"bytes","configuration":{"endian":"little"}},{"name":"zstd","configuration":{"level":1}},{"name":"crc32c"}]`,
}

var types = []string{"uint8", "int16", "float32", "int64"}

// randomSharding picks a shape, shard shape and inner chunk shape.
func randomSharding(r *rand.Rand) (shape, shardShape, inner []int) {
	rank := 1 + r.IntN(3)
	shape, shardShape, inner = make([]int, rank), make([]int, rank), make([]int, rank)
	for d := range rank {
		inner[d] = 1 + r.IntN(3)
		shardShape[d] = inner[d] * (1 + r.IntN(3))
		shape[d] = 1 + r.IntN(2*shardShape[d]+2)
	}
	return shape, shardShape, inner
}

type storeKind struct {
	name string
	open func(t *testing.T) store.Store
}

var storeKinds = []storeKind{
	{"memory", func(*testing.T) store.Store { return store.NewMemory() }},
	{"fs", func(t *testing.T) store.Store { return newFS(t) }},
}

func TestCodecRoundTrips(t *testing.T) {
	for _, sk := range storeKinds {
		t.Run(sk.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(11, uint64(len(sk.name))))
			for iter := range 25 {
				shape, shardShape, inner := randomSharding(r)
				dt := dtype.Named(types[r.IntN(len(types))])
				loc := []string{"end", "start"}[r.IntN(2)]
				m := shardedMeta(dt, shape, shardShape, inner, innerChains[r.IntN(len(innerChains))], loc)
				name := fmt.Sprintf("%d: %s shape %v shard %v inner %v index %s", iter, dt, shape, shardShape, inner, loc)
				roundTrip(t, r, sk.open(t), m, name)
			}
		})
	}
}

func TestTransformerRoundTrips(t *testing.T) {
	for _, sk := range storeKinds {
		t.Run(sk.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(12, uint64(len(sk.name))))
			for iter := range 25 {
				shape, shardShape, chunks := randomSharding(r)
				cps := make([]int, len(shape))
				for d := range cps {
					cps[d] = shardShape[d] / chunks[d]
				}
				dt := dtype.Named(types[r.IntN(len(types))])
				codecs := []meta.Extension{bytesLE(dt)}
				if r.IntN(2) == 0 {
					codecs = append(codecs, ext("gzip", `{"level":1}`))
				}
				m := transformedMeta(dt, shape, chunks, cps, codecs)
				name := fmt.Sprintf("%d: %s shape %v chunks %v per shard %v", iter, dt, shape, chunks, cps)
				roundTrip(t, r, sk.open(t), m, name)
			}
		})
	}
}

// roundTrip writes random selections to a new array and to a reference,
// reopens the array and compares random reads.
func roundTrip(t *testing.T, r *rand.Rand, s store.Store, m *meta.ArrayMeta, name string) {
	t.Helper()
	o := opts()
	o.Concurrency = 1 + r.IntN(4)
	a, err := hierarchy.CreateArray(ctx, s, "g/arr", m, o)
	if err != nil {
		t.Fatalf("%s: create: %v", name, err)
	}
	ref := ndarray.Filled(m.DataType, m.Shape, m.FillValue)
	for range 4 {
		sel := randomSelection(r, m.Shape)
		if r.IntN(4) == 0 {
			sel = grid.All(m.Shape)
		}
		data := randomArray(r, m.DataType, sel.Shape())
		if err := a.Write(ctx, sel, data); err != nil {
			t.Fatalf("%s: write %+v: %v", name, sel, err)
		}
		full := *data
		full.Shape = sel.Counts()
		if err := ndarray.CopyRegion(ref, spans(sel), &full, grid.WholeSpans(full.Shape)); err != nil {
			t.Fatal(err)
		}
	}
	checkShardKeys(t, s, m, name)
	b, err := hierarchy.OpenArray(ctx, s, "g/arr", o)
	if err != nil {
		t.Fatalf("%s: reopen: %v", name, err)
	}
	for k := range 5 {
		sel := randomSelection(r, m.Shape)
		if k == 0 {
			sel = grid.All(m.Shape)
		}
		got, err := b.Read(ctx, sel)
		if err != nil {
			t.Fatalf("%s: read %+v: %v", name, sel, err)
		}
		if want := expect(ref, sel); !reflect.DeepEqual(got.Data, want.Data) {
			t.Fatalf("%s: read %+v differs from what was written", name, sel)
		}
	}
}

// TestDraftTransformer reads an array of the draft v3 layout whose chunks
// were stored through the transformer, as zarr-python 2 wrote them.
func TestDraftTransformer(t *testing.T) {
	s := store.NewMemory()
	put := func(key, doc string) {
		if _, err := s.Set(ctx, key, []byte(doc), store.Condition{}); err != nil {
			t.Fatal(err)
		}
	}
	put("zarr.json", `{"zarr_format": "https://purl.org/zarr/spec/protocol/core/3.0",
	 "metadata_encoding": "https://purl.org/zarr/spec/protocol/core/3.0", "metadata_key_suffix": ".json", "extensions": []}`)
	put("meta/root/foo/baz.array.json", `{"attributes": {}, "shape": [5, 7], "data_type": "<i4",
	 "chunk_grid": {"chunk_shape": [2, 3], "separator": "/", "type": "regular"}, "chunk_memory_layout": "C",
	 "fill_value": 0, "extensions": [],
	 "storage_transformers": [{"extension": "https://purl.org/zarr/spec/storage_transformers/sharding/1.0",
	   "type": "indexed", "configuration": {"chunks_per_shard": [2, 2]}}]}`)
	tr, err := shardtransformer.New(s, shardtransformer.DraftLayout("/"), []int{2, 2})
	if err != nil {
		t.Fatal(err)
	}
	ref := ndarray.New(dtype.Named("int32"), []int{5, 7})
	for i := range 35 {
		binary.LittleEndian.PutUint32(ref.Data[4*i:], uint32(i*3+1))
	}
	g, _ := grid.New([]int{5, 7}, []int{2, 3})
	for c := range g.Chunks {
		chunk := ndarray.New(ref.DType, []int{2, 3})
		region := []grid.Span{{Start: 2 * c[0], Step: 1, Count: min(2, 5-2*c[0])}, {Start: 3 * c[1], Step: 1, Count: min(3, 7-3*c[1])}}
		_ = ndarray.CopyRegion(chunk, grid.WholeSpans([]int{region[0].Count, region[1].Count}), ref, region)
		if _, err := tr.Set(ctx, fmt.Sprintf("data/root/foo/baz/c%d/%d", c[0], c[1]), chunk.Data, store.Condition{}); err != nil {
			t.Fatal(err)
		}
	}
	keys, _ := store.ListAll(ctx, s, "data/")
	want := []string{"data/root/foo/baz/c0/0", "data/root/foo/baz/c0/1", "data/root/foo/baz/c1/0", "data/root/foo/baz/c1/1"}
	if !reflect.DeepEqual(keys, want) {
		t.Fatalf("shards %v, want %v", keys, want)
	}
	if v, _ := s.Get(ctx, "data/root/foo/baz/c1/1", store.ByteRange{}); len(v.Data) != 24+4*16 {
		t.Fatalf("shard c1/1 holds %d bytes, want one chunk of 24 and a 64-byte index", len(v.Data))
	}
	a, err := hierarchy.OpenArray(ctx, s, "foo/baz", opts())
	if err != nil {
		t.Fatal(err)
	}
	got, err := a.ReadAll(ctx)
	if err != nil || !reflect.DeepEqual(got.Data, ref.Data) {
		t.Fatalf("read through the transformer: %v", err)
	}
	if _, err := hierarchy.OpenArray(ctx, s, "foo/baz", array.Options{Codecs: opts().Codecs}); err == nil {
		t.Fatal("an array that needs the transformer opened without it")
	}
}

// checkShardKeys makes sure the store below holds shards, not chunks: with
// the transformer, every key is a shard position of the shard grid.
func checkShardKeys(t *testing.T, s store.Store, m *meta.ArrayMeta, name string) {
	t.Helper()
	shardShape := m.ChunkShape
	if len(m.StorageTransformers) > 0 {
		cps, err := shardtransformer.ParseConfig(m.StorageTransformers[0].Configuration, len(m.Shape))
		if err != nil {
			t.Fatal(err)
		}
		shardShape = make([]int, len(cps))
		for d := range cps {
			shardShape[d] = cps[d] * m.ChunkShape[d]
		}
	}
	g, _ := grid.New(m.Shape, shardShape)
	keys, err := store.ListAll(ctx, s, "g/arr/c/")
	if err != nil {
		t.Fatal(err)
	}
	enc, _ := grid.NewKeyEncoder(m.ChunkKey)
	for _, k := range keys {
		coords, ok := enc.Parse(k[len("g/arr/"):], len(m.Shape))
		if !ok || !inside(coords, g.GridShape()) {
			t.Fatalf("%s: the store holds %s, which is not a shard of the shard grid %v", name, k, g.GridShape())
		}
	}
}

func inside(coords, shape []int) bool {
	for d, c := range coords {
		if c >= shape[d] {
			return false
		}
	}
	return true
}
