package transpose

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/zarrgw/zarrgw/tests/support/fixtures/fixturecheck"

	"github.com/zarrgw/zarrgw/tests/support/fixtures"

	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/codec/codectest"
	"github.com/zarrgw/zarrgw/core/dtype"
	"github.com/zarrgw/zarrgw/core/ndarray"
)

var newCodec = codectest.Builder[*Codec](New)

// naive is numpy.transpose(a, p) written from the definition:
// B[i_0..i_n-1] = A[q] with q[p[k]] = i_k.
func naive(a *ndarray.Array, p []int) *ndarray.Array {
	outShape := make([]int, len(p))
	for i, ax := range p {
		outShape[i] = a.Shape[ax]
	}
	out := ndarray.New(a.DType, outShape)
	n := ndarray.NumElements(outShape)
	idx := make([]int, len(p))
	q := make([]int, len(p))
	for flat := range n {
		rem := flat
		for d := len(p) - 1; d >= 0; d-- {
			idx[d] = rem % outShape[d]
			rem /= outShape[d]
		}
		for k, ax := range p {
			q[ax] = idx[k]
		}
		src := 0
		for d := range q {
			src = src*a.Shape[d] + q[d]
		}
		if a.DType.Variable() {
			out.Strings[flat] = a.Strings[src]
		} else {
			sz := a.DType.Size
			copy(out.Data[flat*sz:(flat+1)*sz], a.Data[src*sz:(src+1)*sz])
		}
	}
	return out
}

func TestMatchesDefinition(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, dt := range codectest.Types() {
		for range 40 {
			shape := codectest.Shape(rng, 5, 6)
			p := rng.Perm(len(shape))
			c, err := NewOrder(p)
			if err != nil {
				t.Fatal(err)
			}
			roundTrip(t, c, codectest.Array(rng, dt, shape), p)
		}
	}
}

// Larger 2-D and 3-D cases exercise whole tiles, edge tiles and the
// word-sized fast paths.
func TestLargeShapes(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	shapes := [][]int{{37, 53}, {64, 16}, {1, 100}, {33, 1, 17}, {9, 10, 11}, {5, 40, 3, 2}}
	for _, dt := range []string{"uint8", "int16", "float32", "float64", "complex128", "r24", "string"} {
		for _, shape := range shapes {
			for range 4 {
				p := rng.Perm(len(shape))
				c, _ := NewOrder(p)
				roundTrip(t, c, codectest.Array(rng, dtype.Named(dt), shape), p)
			}
		}
	}
}

func roundTrip(t *testing.T, c *Codec, a *ndarray.Array, p []int) {
	t.Helper()
	orig := codectest.Clone(a)
	in := codectest.ArraySpec(a)
	enc, err := c.EncodeArray(t.Context(), in, a)
	if err != nil {
		t.Fatalf("%s%v %v: %v", a.DType, a.Shape, p, err)
	}
	codectest.EqualArrays(t, enc, naive(orig, p))
	out, err := c.OutputSpec(t.Context(), in)
	if err != nil || !slices.Equal(out.Shape, enc.Shape) {
		t.Fatalf("OutputSpec %v, encoded shape %v: %v", out.Shape, enc.Shape, err)
	}
	dec, err := c.DecodeArray(t.Context(), in, enc)
	if err != nil {
		t.Fatal(err)
	}
	codectest.EqualArrays(t, dec, orig)
	codectest.EqualArrays(t, a, orig)
}

// The spec's example: order [1, 0] of a 2x3 array is its matrix transpose.
func TestKnownValues(t *testing.T) {
	a := &ndarray.Array{DType: dtype.Named("int8"), Shape: []int{2, 3}, Data: []byte{0, 1, 2, 3, 4, 5}}
	enc, err := newCodec(t, `{"order":[1,0]}`).EncodeArray(t.Context(), codectest.ArraySpec(a), a)
	if err != nil || !slices.Equal(enc.Data, []byte{0, 3, 1, 4, 2, 5}) || !slices.Equal(enc.Shape, []int{3, 2}) {
		t.Fatalf("%v %v %v", enc.Data, enc.Shape, err)
	}
	// 2x2x2 with order [2, 0, 1]: B[i,j,k] = A[j,k,i]
	b := &ndarray.Array{DType: dtype.Named("uint8"), Shape: []int{2, 2, 2}, Data: []byte{0, 1, 2, 3, 4, 5, 6, 7}}
	enc, _ = newCodec(t, `{"order":[2,0,1]}`).EncodeArray(t.Context(), codectest.ArraySpec(b), b)
	if want := []byte{0, 2, 4, 6, 1, 3, 5, 7}; !slices.Equal(enc.Data, want) {
		t.Fatalf("got %v, want %v", enc.Data, want)
	}
}

func TestLegacyOrders(t *testing.T) {
	a := &ndarray.Array{DType: dtype.Named("int8"), Shape: []int{2, 3}, Data: []byte{0, 1, 2, 3, 4, 5}}
	f := newCodec(t, `{"order":"F"}`)
	enc, _ := f.EncodeArray(t.Context(), codectest.ArraySpec(a), a)
	if !slices.Equal(enc.Data, []byte{0, 3, 1, 4, 2, 5}) {
		t.Errorf("F: %v", enc.Data)
	}
	enc, _ = newCodec(t, `{"order":"C"}`).EncodeArray(t.Context(), codectest.ArraySpec(a), a)
	if !slices.Equal(enc.Data, a.Data) {
		t.Errorf("C: %v", enc.Data)
	}
	if got := string(f.Configuration()); got != `{"order":"F"}` {
		t.Errorf("configuration %s", got)
	}
}

func TestConfiguration(t *testing.T) {
	if got := string(newCodec(t, `{"order":[2,0,1]}`).Configuration()); got != `{"order":[2,0,1]}` {
		t.Errorf("configuration %s", got)
	}
	codectest.CheckRefused(t, New, ``, `{}`, `{"order":[0,0]}`, `{"order":[1,2]}`, `{"order":[-1,0]}`, `{"order":"X"}`, `{"order":3}`)
	c := newCodec(t, `{"order":[1,0]}`)
	if _, err := c.OutputSpec(t.Context(), codec.Spec{DataType: dtype.Named("int8"), Shape: []int{2, 2, 2}}); err == nil {
		t.Error("rank mismatch accepted")
	}
	a := &ndarray.Array{DType: dtype.Named("int8"), Shape: []int{2, 3}, Data: make([]byte, 6)}
	_, err := c.DecodeArray(t.Context(), codectest.ArraySpec(a), a) // encoded shape should be [3 2]
	codectest.MustCorrupt(t, err, "wrong encoded shape")
	if n, ok := c.EncodedSize(t.Context(), codectest.ArraySpec(a), 6); !ok || n != 6 {
		t.Error("EncodedSize")
	}
}

// Buffers that are not word-aligned take the byte-array path.
func TestUnalignedData(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, dt := range []string{"int16", "int32", "float64", "complex128"} {
		a := codectest.Array(rng, dtype.Named(dt), []int{7, 9})
		buf := make([]byte, len(a.Data)+1)
		copy(buf[1:], a.Data)
		a.Data = buf[1:]
		c, _ := NewOrder([]int{1, 0})
		roundTrip(t, c, a, []int{1, 0})
	}
}

// zarrs wrote a float32 array through transpose [1, 0] then bytes; the
// stored chunk is the transposed 5x5 block.
func TestFixtureZarrs(t *testing.T) {
	const arr = "zarrs/v3/array_none_transpose.zarr"
	e := fixtures.Array(t, arr)
	c := newCodec(t, `{"order":[1,0]}`)
	for _, idx := range [][]int{{0, 0}, {0, 1}, {1, 0}, {1, 1}} {
		raw := fixtures.Read(t, fmt.Sprintf("%s/%d.%d", arr, idx[0], idx[1]))
		spec := codec.Spec{DataType: dtype.Named("float32"), Shape: []int{5, 5}, DecodedSize: -1}
		dec, err := c.DecodeArray(t.Context(), spec, &ndarray.Array{DType: spec.DataType, Shape: []int{5, 5}, Data: raw})
		if err != nil {
			t.Fatal(err)
		}
		fixturecheck.CompareFloats(t, fixturecheck.Floats(t, dec), fixturecheck.ArangeChunk(e, []int{5, 5}, idx), 0)
	}
}

// zarr-python 2 wrote a 3-D int32 array with order "F" and no compressor:
// each chunk holds its elements in Fortran order.
func TestFixtureOrderF(t *testing.T) {
	const arr = "zarr-python-v2/fixture/21/0"
	e := fixtures.Array(t, arr)
	c := newCodec(t, `{"order":"F"}`)
	chunk := e.ChunkShape // [10 30 3]
	for _, idx := range [][]int{{0, 0, 0}, {1, 2, 3}, {1, 3, 2}} {
		raw := fixtures.Read(t, fmt.Sprintf("%s/%d.%d.%d", arr, idx[0], idx[1], idx[2]))
		spec := codec.Spec{DataType: dtype.Named("int32"), Shape: chunk, DecodedSize: -1}
		out, _ := c.OutputSpec(t.Context(), spec)
		dec, err := c.DecodeArray(t.Context(), spec, &ndarray.Array{DType: spec.DataType, Shape: out.Shape, Data: raw})
		if err != nil {
			t.Fatal(err)
		}
		fixturecheck.CompareFloats(t, fixturecheck.Floats(t, dec), fixturecheck.ArangeChunk(e, chunk, idx), 0)
	}
}

func benchmark(b *testing.B, shape, order []int) {
	a := codectest.Array(rand.New(rand.NewPCG(1, 1)), dtype.Named("uint16"), shape)
	c, _ := NewOrder(order)
	in := codectest.ArraySpec(a)
	b.SetBytes(int64(len(a.Data)))
	b.ResetTimer()
	for range b.N {
		if _, err := c.EncodeArray(b.Context(), in, a); err != nil {
			b.Fatal(err)
		}
	}
}

func Benchmark2D(b *testing.B)         { benchmark(b, []int{1024, 512}, []int{1, 0}) }
func Benchmark3D(b *testing.B)         { benchmark(b, []int{64, 64, 128}, []int{2, 1, 0}) }
func Benchmark3DKeepLast(b *testing.B) { benchmark(b, []int{64, 64, 128}, []int{1, 0, 2}) }
