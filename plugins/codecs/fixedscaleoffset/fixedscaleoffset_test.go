package fixedscaleoffset

import (
	"bytes"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/zarrgw/zarrgw/tests/support/fixtures/fixturecheck"

	"github.com/zarrgw/zarrgw/tests/support/fixtures"

	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/codec/codectest"
	"github.com/zarrgw/zarrgw/core/dtype"
	"github.com/zarrgw/zarrgw/core/ndarray"
)

var newCodec = codectest.Builder[*Codec](New)

func linspace1000() []float64 {
	x := make([]float64, 10)
	for i := range x {
		x[i] = 1000 + float64(i)/9
	}
	x[9] = 1001
	return x
}

// The examples in numcodecs' FixedScaleOffset docstring.
func TestNumcodecsExamples(t *testing.T) {
	x := linspace1000()
	a := &ndarray.Array{DType: dtype.Named("float64"), Shape: []int{10}, Data: codectest.LittleEndian[float64](x...)}
	in := codectest.ArraySpec(a)
	cases := []struct {
		cfg  string
		want []float64
	}{
		{`{"offset":1000,"scale":10,"dtype":"f8","astype":"u1"}`, []float64{0, 1, 2, 3, 4, 6, 7, 8, 9, 10}},
		{`{"offset":1000,"scale":100,"dtype":"f8","astype":"u1"}`, []float64{0, 11, 22, 33, 44, 56, 67, 78, 89, 100}},
		{`{"offset":1000,"scale":1000,"dtype":"f8","astype":"u2"}`, []float64{0, 111, 222, 333, 444, 556, 667, 778, 889, 1000}},
	}
	for _, c := range cases {
		enc, dec := codectest.RoundTripArray(t, newCodec(t, c.cfg), in, a)
		fixturecheck.CompareFloats(t, fixturecheck.Floats(t, enc), c.want, 0)
		got := fixturecheck.Floats(t, dec)
		for i := range got {
			if math.Abs(got[i]-x[i]) > 0.06 {
				t.Errorf("%s: decoded %v, from %v", c.cfg, got[i], x[i])
			}
		}
	}
}

// np.around rounds half to even.
func TestRoundHalfEven(t *testing.T) {
	cd := newCodec(t, `{"offset":0,"scale":1,"dtype":"<f8","astype":"<i4"}`)
	a := &ndarray.Array{DType: dtype.Named("float64"), Shape: []int{6}, Data: codectest.LittleEndian[float64](0.5, 1.5, 2.5, -0.5, -1.5, 2.5000001)}
	enc, _ := cd.EncodeArray(t.Context(), codectest.ArraySpec(a), a)
	fixturecheck.CompareFloats(t, fixturecheck.Floats(t, enc), []float64{0, 2, 2, 0, -2, 3}, 0)
}

// zarr-python 2 wrote float32 [1000, 1000.1, 1000.2, 1000.3] with
// offset 1000, scale 10, astype i2 and no compressor: the chunk is int16
// [0, 1, 2, 3]. Encoding must give those bytes, decoding float32 values.
func TestFixture(t *testing.T) {
	const arr = "zarrita-js/v2/data.zarr/1d.contiguous.fixedscaleoffset.f4"
	raw := fixtures.Read(t, arr+"/0")
	e := fixtures.Array(t, arr)
	cd := newCodec(t, `{"astype":"<i2","dtype":"<f4","id":"fixedscaleoffset","offset":1000,"scale":10}`)
	spec := codec.Spec{DataType: dtype.Named("float32"), Shape: []int{4}, DecodedSize: -1}
	dec, err := cd.DecodeArray(t.Context(), spec, &ndarray.Array{DType: dtype.Named("int16"), Shape: []int{4}, Data: raw})
	if err != nil {
		t.Fatal(err)
	}
	want := fixturecheck.ExpectedFloats(t, e)
	got := fixturecheck.Floats(t, dec)
	for i := range want {
		if got[i] != float64(float32(want[i])) {
			t.Errorf("element %d: %v, want float32(%v)", i, got[i], want[i])
		}
	}
	a := &ndarray.Array{DType: dtype.Named("float32"), Shape: []int{4}, Data: codectest.LittleEndian[float32](1000, 1000.1, 1000.2, 1000.3)}
	enc, err := cd.EncodeArray(t.Context(), spec, a)
	if err != nil || !bytes.Equal(enc.Data, raw) {
		t.Errorf("encoded %x, numcodecs wrote %x (%v)", enc.Data, raw, err)
	}
}

// Integer data with integer offset and scale stays exact.
func TestIntegerRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	cd := newCodec(t, `{"offset":-7,"scale":1,"dtype":"<i4","astype":"<i8"}`)
	a := codectest.Array(rng, dtype.Named("int32"), []int{100})
	for i := 0; i < len(a.Data); i += 4 {
		a.Data[i+3] &= 0x3f // keep x+7 in range
	}
	orig := codectest.Clone(a)
	_, dec := codectest.RoundTripArray(t, cd, codectest.ArraySpec(a), a)
	codectest.EqualArrays(t, dec, orig)
}

func TestConfiguration(t *testing.T) {
	got := string(newCodec(t, `{"id":"fixedscaleoffset","offset":1000,"scale":10.0,"dtype":"<f4","astype":"<i2"}`).Configuration())
	if want := `{"astype":"<i2","dtype":"<f4","offset":1000,"scale":10.0}`; got != want {
		t.Errorf("configuration %s, want %s", got, want)
	}
	codectest.CheckRefused(t, New, `{"scale":1,"dtype":"<f4"}`, `{"offset":1,"dtype":"<f4"}`, `{"offset":"a","scale":1}`, `{"offset":0,"scale":1,"dtype":"|O"}`)
	cd := newCodec(t, `{"offset":1000,"scale":10,"dtype":"<f4","astype":"<i2"}`)
	fill := codectest.LittleEndian[float32](1000.5)
	out, err := cd.OutputSpec(t.Context(), codec.Spec{DataType: dtype.Named("float32"), Shape: []int{4}, FillValue: fill})
	if err != nil || out.DataType.Name != "int16" || !bytes.Equal(out.FillValue, []byte{5, 0}) {
		t.Errorf("OutputSpec %+v %v", out, err)
	}
	if _, err := cd.OutputSpec(t.Context(), codec.Spec{DataType: dtype.Named("float64"), Shape: []int{4}}); err == nil {
		t.Error("type mismatch accepted")
	}
	_, err = cd.DecodeArray(t.Context(), codec.Spec{DataType: dtype.Named("float32"), Shape: []int{4}}, &ndarray.Array{Data: make([]byte, 7)})
	codectest.MustCorrupt(t, err, "short encoded array")
}

func BenchmarkDecodeF4I2(b *testing.B) {
	cd := newCodec(b, `{"offset":1000,"scale":10,"dtype":"<f4","astype":"<i2"}`)
	n := 256 * 1024
	enc := &ndarray.Array{DType: dtype.Named("int16"), Shape: []int{n}, Data: make([]byte, 2*n)}
	in := codec.Spec{DataType: dtype.Named("float32"), Shape: []int{n}}
	b.SetBytes(int64(4 * n))
	b.ResetTimer()
	for range b.N {
		if _, err := cd.DecodeArray(b.Context(), in, enc); err != nil {
			b.Fatal(err)
		}
	}
}

// The fast decode path agrees with the general element path for every
// integer storage type.
func TestFastDecodeAgrees(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, dt := range []string{"<f4", "<f8"} {
		for _, as := range []string{"|i1", "|u1", "<i2", "<u2", "<i4", "<u4", "<i8", "<u8"} {
			cd := newCodec(t, `{"offset":-3.25,"scale":7,"dtype":"`+dt+`","astype":"`+as+`"}`)
			_, dtNum, asNum, err := cd.types.Types(dtype.Named(map[string]string{"<f4": "float32", "<f8": "float64"}[dt]))
			if err != nil {
				t.Fatal(err)
			}
			n := 50
			src := codectest.Bytes(rng, n*8, false)
			fast := make([]byte, n*dtNum.Size)
			if !cd.decodeFast(fast, src, dtNum, asNum, n) {
				t.Fatalf("%s/%s: fast path not taken", dt, as)
			}
			slow := make([]byte, len(fast))
			for i := range n {
				dtNum.Store(slow[i*dtNum.Size:], cd.decode(asNum, asNum.Load(src[i*asNum.Size:])))
			}
			if !bytes.Equal(fast, slow) {
				t.Fatalf("%s/%s: fast and general decode differ", dt, as)
			}
		}
	}
}
