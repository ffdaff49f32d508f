package sharding_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/codec/codectest"
	"github.com/zarrgw/zarrgw/core/dtype"
	"github.com/zarrgw/zarrgw/core/grid"
	"github.com/zarrgw/zarrgw/core/ndarray"
	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/plugins/codecs/sharding"
)

// layout is one shard layout under test.
type layout struct {
	name   string
	codecs string
	index  string
	loc    string
	opts   sharding.Options
}

var layouts = []layout{
	{name: "bytes-end", codecs: `[{"name":"bytes","configuration":{"endian":"little"}}]`, index: crcIndex},
	{name: "gzip-start-morton", codecs: `[{"name":"bytes","configuration":{"endian":"big"}},{"name":"gzip","configuration":{"level":1}}]`,
		index: crcIndex, loc: "start", opts: sharding.Options{Order: sharding.Morton}},
	{name: "transpose-zstd-noindexcrc", codecs: `[{"name":"transpose","configuration":{"order":[0]}},{"name":"bytes","configuration":{"endian":"little"}},{"name":"zstd","configuration":{"level":1}}]`,
		index: `[{"name":"bytes","configuration":{"endian":"little"}}]`},
	{name: "legacy-index", codecs: `[{"name":"bytes","configuration":{"endian":"little"}}]`},
}

// randomCase picks a shard shape, inner chunk shape and data type.
func randomCase(r *rand.Rand) (shape, inner []int, dt dtype.DataType) {
	rank := 1 + r.IntN(3)
	shape, inner = make([]int, rank), make([]int, rank)
	for d := range rank {
		inner[d] = 1 + r.IntN(4)
		shape[d] = inner[d] * (1 + r.IntN(4))
	}
	dt = dtype.Named([]string{"int16", "float64", "uint8", "string"}[r.IntN(4)])
	return shape, inner, dt
}

// randomData fills an array, leaving random inner chunks at the fill value.
func randomData(r *rand.Rand, dt dtype.DataType, shape, inner []int, fill []byte) *ndarray.Array {
	a := ndarray.Filled(dt, shape, fill)
	g, _ := grid.New(shape, inner)
	for coords := range g.Chunks {
		if r.IntN(3) == 0 {
			continue
		}
		sub := ndarray.New(dt, inner)
		if dt.Variable() {
			for i := range sub.Strings {
				sub.Strings[i] = fmt.Sprint(r.IntN(1000))
			}
		} else {
			for i := range sub.Data {
				sub.Data[i] = byte(r.IntN(256))
			}
		}
		region := make([]grid.Span, len(coords))
		for d, c := range coords {
			region[d] = grid.Span{Start: c * inner[d], Step: 1, Count: inner[d]}
		}
		_ = ndarray.CopyRegion(a, region, sub, grid.WholeSpans(inner))
	}
	return a
}

func randomRegion(r *rand.Rand, shape []int) []grid.Span {
	region := make([]grid.Span, len(shape))
	for d, n := range shape {
		start := r.IntN(n)
		step := 1 + r.IntN(2)
		count := 1 + r.IntN((n-1-start)/step+1)
		region[d] = grid.Span{Start: start, Step: step, Count: count}
	}
	return region
}

func slice(a *ndarray.Array, region []grid.Span) *ndarray.Array {
	counts := make([]int, len(region))
	for i, s := range region {
		counts[i] = s.Count
	}
	out := ndarray.New(a.DType, counts)
	if err := ndarray.CopyRegion(out, grid.WholeSpans(counts), a, region); err != nil {
		panic(err)
	}
	return out
}

func sameArray(t *testing.T, what string, got, want *ndarray.Array) {
	t.Helper()
	if !reflect.DeepEqual(got.Shape, want.Shape) || !reflect.DeepEqual(got.Data, want.Data) || !reflect.DeepEqual(got.Strings, want.Strings) {
		t.Fatalf("%s differs:\n got %v %v %q\nwant %v %v %q", what, got.Shape, got.Data, got.Strings, want.Shape, want.Data, want.Strings)
	}
}

func fillFor(dt dtype.DataType) []byte {
	if dt.Variable() {
		return []byte("")
	}
	return make([]byte, dt.Size)
}

func TestRandomRoundTrips(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, l := range layouts {
		t.Run(l.name, func(t *testing.T) {
			for range 60 {
				shape, inner, dt := randomCase(r)
				codecs := l.codecs
				if dt.Variable() {
					codecs = `[{"name":"vlen-utf8"}]`
				}
				codecs = fixTranspose(codecs, len(shape))
				cd := newCodecWith(t, config(inner, codecs, l.index, l.loc), l.opts)
				checkCodec(t, r, cd, shape, dt)
			}
		})
	}
}

// fixTranspose gives the transpose codec an identity order of the rank.
func fixTranspose(codecs string, rank int) string {
	order := make([]int, rank)
	for i := range order {
		order[rank-1-i] = i
	}
	return replace(codecs, `"order":[0]`, `"order":`+ints(order))
}

func replace(s, old, new string) string {
	for i := 0; i+len(old) <= len(s); i++ {
		if s[i:i+len(old)] == old {
			return s[:i] + new + s[i+len(old):]
		}
	}
	return s
}

var versions int

func checkCodec(t *testing.T, r *rand.Rand, cd *sharding.Codec, shape []int, dt dtype.DataType) {
	t.Helper()
	fill := fillFor(dt)
	sp := spec(dt.Name, shape, fill)
	inner := innerShape(t, cd)
	data := randomData(r, dt, shape, inner, fill)
	enc, dec := codectest.RoundTripArrayBytes(t, cd, sp, data)
	sameArray(t, "decoded shard", dec, data)
	region := randomRegion(r, shape)
	// A new version for every new shard: the codec caches indexes by
	// (key, version).
	versions++
	part, err := cd.DecodeRegion(ctx, sp, &memReader{Name: "shard", Data: enc, Version: fmt.Sprint(versions)}, region)
	if err != nil {
		t.Fatal(err)
	}
	sameArray(t, fmt.Sprintf("region %v", region), part, slice(data, region))
	checkEncodeRegion(t, r, cd, sp, enc, data, inner)
}

// checkEncodeRegion writes random data into a random region of the
// encoded shard and compares with the same write done in memory.
func checkEncodeRegion(t *testing.T, r *rand.Rand, cd *sharding.Codec, sp codec.Spec, enc []byte, data *ndarray.Array, inner []int) {
	t.Helper()
	region := randomRegion(r, sp.Shape)
	src := randomData(r, sp.DataType, countsOf(region), countsOf(region), sp.FillValue)
	want := ndarray.New(data.DType, data.Shape)
	_ = ndarray.CopyRegion(want, grid.WholeSpans(data.Shape), data, grid.WholeSpans(data.Shape))
	_ = ndarray.CopyRegion(want, region, src, grid.WholeSpans(src.Shape))
	old := enc
	if r.IntN(4) == 0 { // an absent shard: everything else reads as fill
		old = nil
		want = ndarray.Filled(sp.DataType, sp.Shape, sp.FillValue)
		_ = ndarray.CopyRegion(want, region, src, grid.WholeSpans(src.Shape))
	}
	got, empty, err := cd.EncodeRegion(ctx, sp, old, region, src, grid.WholeSpans(src.Shape))
	if err != nil {
		t.Fatal(err)
	}
	dec, err := cd.Decode(ctx, sp, got)
	if err != nil {
		t.Fatal(err)
	}
	sameArray(t, fmt.Sprintf("after writing region %v", region), dec, want)
	if empty != want.IsFilled(sp.FillValue) {
		t.Fatalf("EncodeRegion says empty=%v", empty)
	}
}

func countsOf(region []grid.Span) []int {
	c := make([]int, len(region))
	for i, s := range region {
		c[i] = s.Count
	}
	return c
}

func innerShape(t *testing.T, cd *sharding.Codec) []int {
	t.Helper()
	shape, err := sharding.InnerChunkShape(cd.Configuration())
	if err != nil {
		t.Fatal(err)
	}
	return shape
}

// TestNestedSharding stores shards whose inner chunks are shards.
func TestNestedSharding(t *testing.T) {
	innerCfg := config([]int{2, 2}, `[{"name":"bytes","configuration":{"endian":"little"}}]`, crcIndex, "")
	cd := newCodec(t, config([]int{4, 4}, `[{"name":"sharding_indexed","configuration":`+innerCfg+`}]`, crcIndex, "start"))
	r := rand.New(rand.NewPCG(3, 4))
	for range 10 {
		checkCodec(t, r, cd, []int{8, 12}, dtype.Named("int32"))
	}
}

func TestMissingShard(t *testing.T) {
	cd := newCodec(t, config([]int{2}, `[{"name":"bytes"}]`, crcIndex, ""))
	for _, region := range [][]grid.Span{{{Start: 0, Step: 1, Count: 4}}, {{Start: 1, Step: 1, Count: 1}}} {
		_, err := cd.DecodeRegion(ctx, spec("uint8", []int{4}, nil), &memReader{Name: "shard", Missing: true}, region)
		if !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("region %v of a missing shard: %v, want ErrNotFound", region, err)
		}
	}
}

func byteArray(v ...byte) *ndarray.Array {
	return &ndarray.Array{DType: dtype.Named("uint8"), Shape: []int{len(v)}, Data: v}
}
