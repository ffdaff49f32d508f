package roundtrip

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"sync"
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

func ext(name, config string) meta.Extension {
	e := meta.Extension{Name: name, MustUnderstand: true}
	if config != "" {
		e.Configuration = json.RawMessage(config)
	}
	return e
}

var fixedTypes = []string{"bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
	"float16", "float32", "float64", "complex64", "complex128", "r8", "r24",
	// the registry's narrow number types, one of each variant and width
	// (float8_e4m3fn, tensorstore's, the one unregistered)
	"bfloat16", "float8_e4m3", "float8_e4m3fn", "float8_e5m2fnuz", "float8_e8m0fnu", "float6_e3m2fn", "float4_e2m1fn",
	"int2", "int4", "uint2", "uint4", "complex_float16", "complex_bfloat16", "complex_float8_e4m3b11fnuz",
	"complex_float4_e2m1fn"}

// chain builds the codec chain under test for a data type.
type chain struct {
	name   string
	codecs func(dt dtype.DataType) []meta.Extension
	// types restricts the chain to some kinds (nil = every fixed type).
	types func(dt dtype.DataType) bool
}

func bytesCodec(dt dtype.DataType, endian string) meta.Extension {
	if !dt.HasEndian() {
		return ext("bytes", "")
	}
	return ext("bytes", fmt.Sprintf(`{"endian":%q}`, endian))
}

func then(c ...meta.Extension) func(dt dtype.DataType) []meta.Extension {
	return func(dt dtype.DataType) []meta.Extension {
		return append([]meta.Extension{bytesCodec(dt, "little")}, c...)
	}
}

func isInt(dt dtype.DataType) bool { return dt.Kind == dtype.Int || dt.Kind == dtype.Uint }

var chains = []chain{
	{name: "bytes-little", codecs: then()},
	{name: "bytes-big", codecs: func(dt dtype.DataType) []meta.Extension { return []meta.Extension{bytesCodec(dt, "big")} }},
	{name: "transpose", codecs: func(dt dtype.DataType) []meta.Extension {
		return []meta.Extension{ext("transpose", `{"order":[2,0,1]}`), bytesCodec(dt, "little")}
	}},
	{name: "gzip", codecs: then(ext("gzip", `{"level":5}`))},
	{name: "zstd", codecs: then(ext("zstd", `{"level":0,"checksum":false}`))},
	{name: "zstd-checksum", codecs: then(ext("zstd", `{"level":3,"checksum":true}`))},
	{name: "crc32c", codecs: then(ext("crc32c", ""))},
	{name: "zlib", codecs: then(ext("numcodecs.zlib", `{"level":1}`))},
	{name: "lz4", codecs: then(ext("numcodecs.lz4", `{"acceleration":1}`))},
	{name: "bz2", codecs: then(ext("numcodecs.bz2", `{"level":1}`))},
	{name: "shuffle-zstd", codecs: func(dt dtype.DataType) []meta.Extension {
		return then(ext("numcodecs.shuffle", fmt.Sprintf(`{"elementsize":%d}`, dt.Size)), ext("zstd", `{"level":1}`))(dt)
	}},
	{name: "fletcher32", codecs: then(ext("numcodecs.fletcher32", ""))},
	{name: "adler32", codecs: then(ext("numcodecs.adler32", ""))},
	{name: "delta", types: isInt, codecs: func(dt dtype.DataType) []meta.Extension {
		t := dt.V2String(dtype.Little)
		return []meta.Extension{ext("numcodecs.delta", fmt.Sprintf(`{"dtype":%q,"astype":%q}`, t, t)), bytesCodec(dt, "little")}
	}},
}

var stringChains = []chain{
	{name: "vlen-utf8", codecs: func(dtype.DataType) []meta.Extension { return []meta.Extension{ext("vlen-utf8", "{}")} }},
	{name: "vlen-utf8-zstd", codecs: func(dtype.DataType) []meta.Extension {
		return []meta.Extension{ext("vlen-utf8", "{}"), ext("zstd", `{"level":0}`)}
	}},
	{name: "transpose-vlen", codecs: func(dtype.DataType) []meta.Extension {
		return []meta.Extension{ext("transpose", `{"order":[1,2,0]}`), ext("vlen-utf8", "{}")}
	}},
	{name: "json2", codecs: func(dtype.DataType) []meta.Extension { return []meta.Extension{ext("numcodecs.json2", "{}")} }},
}

func TestRoundTripV3(t *testing.T) {
	for _, c := range chains {
		for _, name := range fixedTypes {
			dt := dtype.Named(name)
			if c.types != nil && !c.types(dt) {
				continue
			}
			t.Run(c.name+"/"+name, func(t *testing.T) { roundTrip(t, meta.V3, dt, c.codecs(dt)) })
		}
	}
	for _, c := range stringChains {
		t.Run(c.name+"/string", func(t *testing.T) { roundTrip(t, meta.V3, dtype.Named("string"), c.codecs(dtype.Named("string"))) })
	}
	t.Run("vlen-bytes/bytes", func(t *testing.T) {
		roundTrip(t, meta.V3, dtype.Named("bytes"), []meta.Extension{ext("vlen-bytes", "{}")})
	})
}

// v2 chains: the filters and compressors zarr-python 2 writes.
func TestRoundTripV2(t *testing.T) {
	fOrder := chain{name: "order-F", codecs: func(dt dtype.DataType) []meta.Extension {
		return []meta.Extension{ext("transpose", `{"order":[2,1,0]}`), bytesCodec(dt, "little")}
	}}
	v2chains := []chain{chains[0], chains[1], fOrder, chains[3], chains[4], chains[7], chains[8], chains[10], chains[11], chains[13]}
	v2types := append([]string{}, fixedTypes[:14]...)
	for _, c := range v2chains {
		for _, name := range v2types {
			dt := dtype.Named(name)
			if c.types != nil && !c.types(dt) {
				continue
			}
			t.Run(c.name+"/"+name, func(t *testing.T) { roundTrip(t, meta.V2, dt, c.codecs(dt)) })
		}
	}
	for _, typestr := range []string{"|S5", "<U3", ">U2"} {
		dt, end, err := dtype.ParseV2(typestr)
		if err != nil {
			t.Fatal(err)
		}
		e := "little"
		if end == dtype.Big {
			e = "big"
		}
		t.Run("fixed/"+typestr, func(t *testing.T) {
			roundTrip(t, meta.V2, dt, []meta.Extension{bytesCodec(dt, e), ext("numcodecs.zlib", `{"level":1}`)})
		})
	}
	obj, _, _ := dtype.ParseV2("|O")
	t.Run("object/vlen-utf8", func(t *testing.T) { roundTrip(t, meta.V2, obj, []meta.Extension{ext("vlen-utf8", "{}")}) })
}

// roundTrip creates an array of random shape and chunking, applies random
// writes to it and to a reference, and compares random reads.
func roundTrip(t *testing.T, f meta.Format, dt dtype.DataType, codecs []meta.Extension) {
	ctx := context.Background()
	r := rand.New(rand.NewSource(int64(len(t.Name())) * 7919))
	for iter := 0; iter < 3; iter++ {
		shape, chunks := make([]int, 3), make([]int, 3)
		for i := range shape {
			shape[i] = 1 + r.Intn(9)
			chunks[i] = 1 + r.Intn(5)
		}
		fill := randomArray(r, dt, []int{1})
		m := &meta.ArrayMeta{
			Format: f, Shape: shape, ChunkShape: chunks, DataType: dt,
			FillValue: elementBytes(fill), Codecs: codecs, Attributes: json.RawMessage(`{"iteration":` + fmt.Sprint(iter) + `}`),
		}
		m.ChunkKey = meta.ChunkKeyEncoding{Name: "default", Separator: "/"}
		if f == meta.V2 {
			m.ChunkKey = meta.ChunkKeyEncoding{Name: "v2", Separator: "."}
		}
		s := store.NewMemory()
		opts := array.Options{Codecs: registry.Codecs(), Concurrency: 1 + r.Intn(4), WriteEmptyChunks: r.Intn(2) == 0}
		if r.Intn(2) == 0 {
			opts.Chunks = &mapCache{m: map[string]*ndarray.Array{}} // writes must drop what they change
		}
		a, err := hierarchy.CreateArray(ctx, s, "g/arr", m, opts)
		if err != nil {
			t.Fatalf("create: %v", err)
		}
		ref := ndarray.Filled(dt, shape, m.FillValue)
		for w := 0; w < 4; w++ {
			sel := randomSelection(r, shape)
			data := randomArray(r, dt, sel.Shape())
			if err := a.Write(ctx, sel, data); err != nil {
				t.Fatalf("write %+v: %v", sel, err)
			}
			full := *data
			full.Shape = sel.Counts()
			if err := ndarray.CopyRegion(ref, spans(sel), &full, grid.WholeSpans(full.Shape)); err != nil {
				t.Fatal(err)
			}
			// reads between writes: a chunk cache must not keep what a
			// write changed
			checkRead(t, a, ref, grid.All(shape))
		}
		// Reopen from the store so metadata goes through a write and a read.
		b, err := hierarchy.OpenArray(ctx, s, "g/arr", opts)
		if err != nil {
			t.Fatalf("reopen: %v", err)
		}
		for k := 0; k < 4; k++ {
			sel := randomSelection(r, shape)
			if k == 0 {
				sel = nil
				for _, n := range shape {
					sel = append(sel, gridAll(n))
				}
			}
			checkRead(t, b, ref, sel)
		}
	}
}

// checkRead reads sel of a and compares it with the reference array.
func checkRead(t *testing.T, a *array.Array, ref *ndarray.Array, sel grid.Selection) {
	t.Helper()
	got, err := a.Read(context.Background(), sel)
	if err != nil {
		t.Fatalf("read %+v: %v", sel, err)
	}
	want := ndarray.New(ref.DType, sel.Counts())
	if err := ndarray.CopyRegion(want, grid.WholeSpans(want.Shape), ref, spans(sel)); err != nil {
		t.Fatal(err)
	}
	if !sameElements(got, want) {
		t.Fatalf("shape %v chunks %v: read %+v differs from what was written", a.Shape(), a.Meta().ChunkShape, sel)
	}
}

func elementBytes(a *ndarray.Array) []byte {
	if a.DType.Variable() {
		return []byte(a.Strings[0])
	}
	return a.Data
}

func sameElements(a, b *ndarray.Array) bool {
	if a.Len() != b.Len() {
		return false
	}
	if a.DType.Variable() {
		for i := range a.Strings {
			if a.Strings[i] != b.Strings[i] {
				return false
			}
		}
		return true
	}
	return string(a.Data) == string(b.Data)
}

// Chunks that span whole rows are read straight into the output (no copy);
// this covers that path for raw and compressed chains, missing chunks and
// big-endian data (which must not take it).
func TestRoundTripRowChunks(t *testing.T) {
	ctx := context.Background()
	for _, c := range []chain{chains[0], chains[1], chains[4], chains[6]} {
		for _, name := range []string{"uint8", "int16", "float64"} {
			dt := dtype.Named(name)
			t.Run(c.name+"/"+name, func(t *testing.T) {
				r := rand.New(rand.NewSource(3))
				shape, chunks := []int{7, 5, 3}, []int{2, 5, 3}
				m := &meta.ArrayMeta{Format: meta.V3, Shape: shape, ChunkShape: chunks, DataType: dt,
					FillValue: elementBytes(randomArray(r, dt, []int{1})), Codecs: c.codecs(dt),
					ChunkKey: meta.ChunkKeyEncoding{Name: "default", Separator: "/"}, Attributes: json.RawMessage("{}")}
				s := store.NewMemory()
				a, err := hierarchy.CreateArray(ctx, s, "rows", m, array.Options{Codecs: registry.Codecs()})
				if err != nil {
					t.Fatal(err)
				}
				// write rows 2..5 only: chunk 0 and 3 stay missing
				sel := grid.Box([]int{2, 0, 0}, []int{4, 5, 3})
				data := randomArray(r, dt, sel.Shape())
				if err := a.Write(ctx, sel, data); err != nil {
					t.Fatal(err)
				}
				got, err := a.ReadAll(ctx)
				if err != nil {
					t.Fatal(err)
				}
				want := ndarray.Filled(dt, shape, m.FillValue)
				if err := ndarray.CopyRegion(want, spans(sel), data, grid.WholeSpans(data.Shape)); err != nil {
					t.Fatal(err)
				}
				if !sameElements(got, want) {
					t.Fatal("row-chunked read differs from what was written")
				}
			})
		}
	}
}

// Blosc chains read through the direct path too (row chunks) and the
// general one (2-D chunks).
func TestRoundTripBlosc(t *testing.T) {
	for _, cfg := range []string{
		`{"cname":"lz4","clevel":5,"shuffle":"shuffle","typesize":4,"blocksize":0}`,
		`{"cname":"zstd","clevel":3,"shuffle":"bitshuffle","typesize":4,"blocksize":0}`,
		`{"cname":"blosclz","clevel":9,"shuffle":"noshuffle","typesize":4,"blocksize":0}`,
	} {
		for _, f := range []meta.Format{meta.V3, meta.V2} {
			dt := dtype.Named("float32")
			t.Run(cfg+f.String(), func(t *testing.T) { roundTrip(t, f, dt, then(ext("blosc", cfg))(dt)) })
		}
	}
}

// mapCache is an unbounded array.ChunkCache.
type mapCache struct {
	mu sync.Mutex
	m  map[string]*ndarray.Array
}

func (c *mapCache) Get(key string) (*ndarray.Array, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	a, ok := c.m[key]
	return a, ok
}

func (c *mapCache) Put(key string, a *ndarray.Array) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.m[key] = a
}

func (c *mapCache) Drop(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.m, key)
}
