package delta

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/zarrgw/zarrgw/tests/support/fixtures/fixturecheck"

	"github.com/zarrgw/zarrgw/tests/support/fixtures"

	"github.com/klauspost/compress/zlib"

	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/codec/codectest"
	"github.com/zarrgw/zarrgw/core/dtype"
	"github.com/zarrgw/zarrgw/core/ndarray"
	"github.com/zarrgw/zarrgw/plugins/codecs/internal/numeric"
	"github.com/zarrgw/zarrgw/plugins/codecs/transpose"
)

var newCodec = codectest.Builder[*Codec](New)

// numcodecs' documented example: arange(100, 120, 2) as i2 with astype i1
// encodes to [100, 2, 2, ...].
func TestNumcodecsExample(t *testing.T) {
	c := newCodec(t, `{"id":"delta","dtype":"<i2","astype":"<i1"}`)
	a := &ndarray.Array{DType: dtype.Named("int16"), Shape: []int{10}, Data: codectest.LittleEndian[int16](100, 102, 104, 106, 108, 110, 112, 114, 116, 118)}
	in := codectest.ArraySpec(a)
	enc, dec := codectest.RoundTripArray(t, c, in, a)
	if want := []byte{100, 2, 2, 2, 2, 2, 2, 2, 2, 2}; !bytes.Equal(enc.Data, want) || enc.DType.Name != "int8" {
		t.Fatalf("encoded %v %s", enc.Data, enc.DType)
	}
	out, _ := c.OutputSpec(t.Context(), in)
	if out.DataType.Name != "int8" {
		t.Errorf("OutputSpec type %s", out.DataType)
	}
	codectest.EqualArrays(t, dec, a)
}

// Integer round trips are exact whenever astype is at least as wide.
func TestRoundTripIntegers(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	ints := []string{"int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"}
	for _, d := range ints {
		for _, as := range ints {
			dt, at := dtype.Named(d), dtype.Named(as)
			if at.Size < dt.Size {
				continue
			}
			c := newCodec(t, `{"dtype":"`+d+`","astype":"`+as+`"}`)
			for range 10 {
				a := codectest.Array(rng, dt, codectest.Shape(rng, 3, 8))
				orig := codectest.Clone(a)
				_, dec := codectest.RoundTripArray(t, c, codectest.ArraySpec(a), a)
				codectest.EqualArrays(t, dec, orig)
			}
		}
	}
}

// The word-wise integer kernels agree with the element-wise numeric path.
func TestKernelsAgree(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, name := range []string{"int8", "uint16", "int32", "uint64"} {
		nt, _ := numeric.Of(dtype.Named(name))
		src := codectest.Bytes(rng, 64*nt.Size, false)
		a, b := make([]byte, len(src)), make([]byte, len(src))
		diffInts(a, src, nt.Size)
		diffValues(b, src, nt, nt, 64)
		if !bytes.Equal(a, b) {
			t.Fatalf("%s: diff kernels differ", name)
		}
		sumInts(a, src, nt.Size)
		sumValues(b, src, nt, nt, 64)
		if !bytes.Equal(a, b) {
			t.Fatalf("%s: sum kernels differ", name)
		}
	}
}

// Float deltas are computed in the float type: float32 0.1 steps.
func TestFloat32(t *testing.T) {
	c := newCodec(t, `{"dtype":"<f4"}`)
	x := []float32{0.1, 0.2, 0.30000001, 1e30, -1e30}
	data := make([]byte, 4*len(x))
	for i, v := range x {
		binary.LittleEndian.PutUint32(data[4*i:], math.Float32bits(v))
	}
	a := &ndarray.Array{DType: dtype.Named("float32"), Shape: []int{len(x)}, Data: data}
	enc, err := c.EncodeArray(t.Context(), codectest.ArraySpec(a), a)
	if err != nil {
		t.Fatal(err)
	}
	for i := range x {
		want := x[i]
		if i > 0 {
			want = x[i] - x[i-1] // float32 arithmetic
		}
		if got := math.Float32frombits(binary.LittleEndian.Uint32(enc.Data[4*i:])); got != want {
			t.Errorf("delta %d = %v, want %v", i, got, want)
		}
	}
	// small integers in float64 round-trip exactly
	f := newCodec(t, `{"dtype":"float64","astype":"float32"}`)
	b := &ndarray.Array{DType: dtype.Named("float64"), Shape: []int{3}, Data: binary.LittleEndian.AppendUint64(binary.LittleEndian.AppendUint64(binary.LittleEndian.AppendUint64(nil, math.Float64bits(5)), math.Float64bits(-2)), math.Float64bits(7))}
	enc, _ = f.EncodeArray(t.Context(), codectest.ArraySpec(b), b)
	dec, err := f.DecodeArray(t.Context(), codectest.ArraySpec(b), enc)
	if err != nil || !bytes.Equal(dec.Data, b.Data) {
		t.Errorf("float64/float32 round trip: %v", err)
	}
}

func TestConfiguration(t *testing.T) {
	if got := string(newCodec(t, `{"id":"delta","dtype":"<i2","astype":"<i1"}`).Configuration()); got != `{"astype":"<i1","dtype":"<i2"}` {
		t.Errorf("configuration %s", got)
	}
	codectest.CheckRefused(t, New, `{"dtype":"|O"}`, `{"dtype":"<c8"}`, `{"dtype":"<i2","astype":"what"}`, `{"dtype":3}`)
	c := newCodec(t, `{"dtype":"<i4"}`)
	if _, err := c.OutputSpec(t.Context(), codec.Spec{DataType: dtype.Named("int16"), Shape: []int{2}}); err == nil {
		t.Error("dtype of another size accepted")
	}
	// no dtype: taken from the array
	out, err := newCodec(t, `{}`).OutputSpec(t.Context(), codec.Spec{DataType: dtype.Named("uint16"), Shape: []int{2}, FillValue: []byte{5, 0}})
	if err != nil || out.DataType.Name != "uint16" || !bytes.Equal(out.FillValue, []byte{5, 0}) {
		t.Errorf("%+v %v", out, err)
	}
	if _, err := newCodec(t, `{}`).OutputSpec(t.Context(), codec.Spec{DataType: dtype.Named("bool"), Shape: []int{2}}); err == nil {
		t.Error("bool accepted")
	}
	_, err = newCodec(t, `{}`).DecodeArray(t.Context(), codec.Spec{DataType: dtype.Named("uint16"), Shape: []int{2}}, &ndarray.Array{Data: []byte{1}})
	codectest.MustCorrupt(t, err, "short encoded array")
}

// zarr-python 2 wrote int16 [1,2,3,4] through Delta and zlib.
func TestFixtureV2(t *testing.T) {
	const arr = "zarrita-js/v2/data.zarr/1d.contiguous.delta.i2"
	r, err := zlib.NewReader(bytes.NewReader(fixtures.Read(t, arr+"/0")))
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(r)
	if !bytes.Equal(raw, codectest.LittleEndian[int16](1, 1, 1, 1)) {
		t.Fatalf("stored deltas %v", raw)
	}
	c := newCodec(t, `{"astype":"<i2","dtype":"<i2","id":"delta"}`)
	spec := codec.Spec{DataType: dtype.Named("int16"), Shape: []int{4}, DecodedSize: -1}
	dec, err := c.DecodeArray(t.Context(), spec, &ndarray.Array{DType: spec.DataType, Shape: []int{4}, Data: raw})
	if err != nil {
		t.Fatal(err)
	}
	fixturecheck.CompareFloats(t, fixturecheck.Floats(t, dec), fixturecheck.ArangeChunk(fixtures.Array(t, arr), []int{4}, []int{0}), 0)
}

// zarr-python 3 wrote int32 arange(27) as 3x3x3 through transpose [1,0,2],
// numcodecs.delta and bytes: undo them in reverse.
func TestFixtureV3WithTranspose(t *testing.T) {
	const arr = "zarrita-js/v3/data.zarr/3d.contiguous.delta.i4.mixed"
	raw := fixtures.Read(t, arr+"/c/0/0/0")
	tc, err := transpose.New(t.Context(), json.RawMessage(`{"order":[1,0,2]}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	tr := tc.(codec.ArrayArray)
	chunk := codec.Spec{DataType: dtype.Named("int32"), Shape: []int{3, 3, 3}, DecodedSize: -1}
	mid, _ := tr.OutputSpec(t.Context(), chunk)
	d := newCodec(t, `{"dtype":"int32"}`)
	deltas := &ndarray.Array{DType: mid.DataType, Shape: mid.Shape, Data: raw}
	undelta, err := d.DecodeArray(t.Context(), mid, deltas)
	if err != nil {
		t.Fatal(err)
	}
	dec, err := tr.DecodeArray(t.Context(), chunk, undelta)
	if err != nil {
		t.Fatal(err)
	}
	want := fixturecheck.ArangeChunk(fixtures.Array(t, arr), []int{3, 3, 3}, []int{0, 0, 0})
	fixturecheck.CompareFloats(t, fixturecheck.Floats(t, dec), want, 0)
	if !slices.Equal(dec.Shape, []int{3, 3, 3}) {
		t.Errorf("shape %v", dec.Shape)
	}
}

func BenchmarkDecodeInt16(b *testing.B) {
	c := newCodec(b, `{"dtype":"<i2"}`)
	a := codectest.Array(rand.New(rand.NewPCG(1, 1)), dtype.Named("int16"), []int{512 * 1024})
	in := codectest.ArraySpec(a)
	b.SetBytes(int64(len(a.Data)))
	b.ResetTimer()
	for range b.N {
		if _, err := c.DecodeArray(b.Context(), in, a); err != nil {
			b.Fatal(err)
		}
	}
}
