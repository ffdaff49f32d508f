package codectest

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/grid"
	"github.com/zarrgw/zarrgw/core/ndarray"
	"github.com/zarrgw/zarrgw/core/store"
)

// checkPartial: a codec that decodes regions of a chunk from byte ranges
// (codec.PartialDecoder, and codec.PartialDecoderInto) decodes each region
// as a whole decode does, reading no more than the chunk; a chunk that is
// not stored is store.ErrNotFound.
func checkPartial(t *testing.T, c codec.Codec, k Case) {
	pd := c.(codec.PartialDecoder) // Run runs this check on partial decoders only
	rng := rand.New(rand.NewPCG(7, 8))
	for _, in := range k.specs() {
		x := k.chunk(rng, in)
		enc, err := encode(t.Context(), c, in, value{a: x})
		if err != nil {
			t.Fatalf("encode: %v", err)
		}
		whole, err := decode(t.Context(), c, in, enc, -1, 0)
		if err != nil {
			t.Fatalf("decode: %v", err)
		}
		for _, region := range regions(rng, in.Shape) {
			want := extract(t, whole.a, region)
			got, err := pd.DecodeRegion(t.Context(), in, &Ranges{Data: enc.b}, region)
			if err != nil || !(value{a: got}).equal(value{a: want}) {
				t.Fatalf("%v: region %v decoded as %v (%v), want %v", in.Shape, region, value{a: got}, err, value{a: want})
			}
			partialInto(t, c, in, enc.b, region, want)
		}
		_, err = pd.DecodeRegion(t.Context(), in, &Ranges{Missing: true}, grid.WholeSpans(in.Shape))
		if !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("region of a chunk not stored: %v, want store.ErrNotFound", err)
		}
	}
}

// partialInto checks DecodeRegionInto, where offered, into the middle of a
// larger array.
func partialInto(t *testing.T, c codec.Codec, in codec.Spec, enc []byte, region []grid.Span, want *ndarray.Array) {
	t.Helper()
	pdi, ok := c.(codec.PartialDecoderInto)
	if !ok {
		return
	}
	shape := make([]int, len(region))
	sel := make([]grid.Span, len(region))
	for d, s := range region {
		shape[d] = s.Count + 2
		sel[d] = grid.Span{Start: 1, Step: 1, Count: s.Count}
	}
	dst := ndarray.New(in.DataType, shape)
	if err := pdi.DecodeRegionInto(t.Context(), in, &Ranges{Data: enc}, region, dst, sel); err != nil {
		t.Fatalf("DecodeRegionInto %v: %v", region, err)
	}
	if got := extract(t, dst, sel); !(value{a: got}).equal(value{a: want}) {
		t.Fatalf("DecodeRegionInto %v differs from the whole decode", region)
	}
}

// regions are the whole chunk, its first element, and random boxes, some
// with steps.
func regions(rng *rand.Rand, shape []int) [][]grid.Span {
	out := [][]grid.Span{grid.WholeSpans(shape)}
	if ndarray.NumElements(shape) == 0 {
		return out
	}
	first := make([]grid.Span, len(shape))
	for d := range shape {
		first[d] = grid.Span{Start: 0, Step: 1, Count: 1}
	}
	out = append(out, first)
	for range 4 {
		r := make([]grid.Span, len(shape))
		for d, n := range shape {
			start := rng.IntN(n)
			step := 1 + rng.IntN(2)
			r[d] = grid.Span{Start: start, Step: step, Count: 1 + rng.IntN((n-start+step-1)/step)}
		}
		out = append(out, r)
	}
	return out
}

// extract copies region of a into an array of the region's counts.
func extract(t *testing.T, a *ndarray.Array, region []grid.Span) *ndarray.Array {
	t.Helper()
	counts := make([]int, len(region))
	for d, s := range region {
		counts[d] = s.Count
	}
	out := ndarray.New(a.DType, counts)
	if err := ndarray.CopyRegion(out, grid.WholeSpans(counts), a, region); err != nil {
		t.Fatal(err)
	}
	return out
}

// Ranges is a codec.RangeReader over one value in memory, for partial
// decoders under test; it counts what it is asked for.
type Ranges struct {
	Data []byte
	// Version is the version reads report; Name the key caches know the
	// value by ("" is not cached).
	Version, Name string
	// Missing makes every read fail with store.ErrNotFound.
	Missing bool
	// NoSuffix refuses suffix ranges, as some stores do.
	NoSuffix bool
	// ReadCalls, RangesRead and BytesRead count the ReadRanges calls, the
	// ranges they asked for and the bytes they returned.
	ReadCalls, RangesRead, BytesRead int
}

// ReadRanges implements codec.RangeReader.
func (r *Ranges) ReadRanges(_ context.Context, ranges []store.ByteRange) ([][]byte, string, error) {
	r.ReadCalls++
	if r.Missing {
		return nil, "", fmt.Errorf("value: %w", store.ErrNotFound)
	}
	out := make([][]byte, len(ranges))
	for i, br := range ranges {
		if br.Kind == store.Suffix && r.NoSuffix {
			return nil, "", fmt.Errorf("suffix range: %w", store.ErrUnsupported)
		}
		part, err := store.SliceRange(r.Data, br)
		if err != nil {
			return nil, "", err
		}
		r.RangesRead++
		r.BytesRead += len(part)
		out[i] = append([]byte(nil), part...)
	}
	return out, r.Version, nil
}

// SuffixRanges implements codec.RangeReader.
func (r *Ranges) SuffixRanges() bool { return !r.NoSuffix }

// Size implements codec.RangeReader.
func (r *Ranges) Size(context.Context) (int64, error) {
	if r.Missing {
		return 0, fmt.Errorf("value: %w", store.ErrNotFound)
	}
	return int64(len(r.Data)), nil
}

// Key implements codec.RangeReader.
func (r *Ranges) Key() string { return r.Name }

// RegionOfWhole is the plainest partial decoder, for test codecs: it reads
// src whole, decodes it with decode, and copies region out.
func RegionOfWhole(ctx context.Context, in codec.Spec, src codec.RangeReader, region []grid.Span,
	decode func(context.Context, codec.Spec, []byte) (*ndarray.Array, error)) (*ndarray.Array, error) {
	got, _, err := src.ReadRanges(ctx, []store.ByteRange{{}})
	if err != nil {
		return nil, err
	}
	whole, err := decode(ctx, in, got[0])
	if err != nil {
		return nil, err
	}
	counts := make([]int, len(region))
	all := make([]grid.Span, len(region))
	for d, s := range region {
		counts[d], all[d] = s.Count, grid.Span{Step: 1, Count: s.Count}
	}
	out := ndarray.New(in.DataType, counts)
	if err := ndarray.CopyRegion(out, all, whole, region); err != nil {
		return nil, err
	}
	return out, nil
}
