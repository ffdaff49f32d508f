package bitround

import (
	"bytes"
	"encoding/binary"
	"fmt"
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

// zarr-python 2 stored BitRound(keepbits=3) of [1.1, 2.2, 3.3, 4.4] as
// float32 with no compressor; encoding must reproduce the chunk.
func TestFixture(t *testing.T) {
	const arr = "zarrita-js/v2/data.zarr/1d.contiguous.bitround.f4"
	raw := fixtures.Read(t, arr+"/0")
	c := newCodec(t, `{"id":"bitround","keepbits":3}`)
	a := &ndarray.Array{DType: dtype.Named("float32"), Shape: []int{4}, Data: codectest.LittleEndian[float32](1.1, 2.2, 3.3, 4.4)}
	enc, err := c.EncodeArray(t.Context(), codectest.ArraySpec(a), a)
	if err != nil || !bytes.Equal(enc.Data, raw) {
		t.Fatalf("encoded %x (%v), numcodecs wrote %x", enc.Data, err, raw)
	}
	dec, _ := c.DecodeArray(t.Context(), codectest.ArraySpec(a), &ndarray.Array{DType: a.DType, Shape: []int{4}, Data: raw})
	fixturecheck.CompareFloats(t, fixturecheck.Floats(t, dec), fixturecheck.ExpectedFloats(t, fixtures.Array(t, arr)), 0)
}

// With one mantissa bit kept, 1.25 and 1.75 are ties: to even gives 1.0
// and 2.0; 1.3 rounds up to 1.5, 1.2 down to 1.0. Same for every width.
func TestTiesToEven(t *testing.T) {
	in := []float64{1.25, 1.75, 1.3, 1.2, -1.25, 0}
	want := []float64{1, 2, 1.5, 1, -1, 0}
	c := newCodec(t, `{"keepbits":1}`)
	for _, name := range []string{"float16", "float32", "float64"} {
		dt := dtype.Named(name)
		a := ndarray.New(dt, []int{len(in)})
		for i, v := range in {
			switch dt.Size {
			case 2:
				binary.LittleEndian.PutUint16(a.Data[2*i:], half(v))
			case 4:
				binary.LittleEndian.PutUint32(a.Data[4*i:], math.Float32bits(float32(v)))
			default:
				binary.LittleEndian.PutUint64(a.Data[8*i:], math.Float64bits(v))
			}
		}
		enc, err := c.EncodeArray(t.Context(), codectest.ArraySpec(a), a)
		if err != nil {
			t.Fatal(err)
		}
		fixturecheck.CompareFloats(t, fixturecheck.Floats(t, enc), want, 0)
	}
}

// half encodes the few exactly representable test values as float16.
func half(v float64) uint16 {
	sign := uint16(0)
	if v < 0 {
		sign, v = 0x8000, -v
	}
	if v == 0 {
		return sign
	}
	exp := math.Floor(math.Log2(v))
	mant := v/math.Exp2(exp) - 1
	return sign | uint16(exp+15)<<10 | uint16(math.Round(mant*1024))
}

// Every result keeps only keepbits mantissa bits and lies within half a
// kept unit of the input.
func TestProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for keep := 0; keep <= 23; keep++ {
		c := newCodec(t, fmt.Sprintf(`{"keepbits":%d}`, keep))
		a := &ndarray.Array{DType: dtype.Named("float32"), Shape: []int{200}, Data: make([]byte, 800)}
		for i := range 200 {
			binary.LittleEndian.PutUint32(a.Data[4*i:], math.Float32bits(float32(rng.NormFloat64()*1000)))
		}
		orig := codectest.Clone(a)
		enc, err := c.EncodeArray(t.Context(), codectest.ArraySpec(a), a)
		if err != nil {
			t.Fatal(err)
		}
		codectest.EqualArrays(t, a, orig)
		for i := range 200 {
			x := math.Float32frombits(binary.LittleEndian.Uint32(orig.Data[4*i:]))
			b := binary.LittleEndian.Uint32(enc.Data[4*i:])
			if drop := 23 - keep; drop > 0 && b&(1<<drop-1) != 0 {
				t.Fatalf("keep %d: %#x has dropped bits set", keep, b)
			}
			y := math.Float32frombits(b)
			// half a kept unit, 2^(exponent-keep-1), is at most |x| * 2^(-keep-1)
			if d := math.Abs(float64(y) - float64(x)); d > math.Abs(float64(x))*math.Exp2(-float64(keep)-1) {
				t.Fatalf("keep %d: %v -> %v", keep, x, y)
			}
		}
	}
}

func TestConfigurationAndTypes(t *testing.T) {
	codectest.CheckRefused(t, New, ``, `{}`, `{"keepbits":-1}`, `{"keepbits":"3"}`)
	c := newCodec(t, `{"keepbits":11}`)
	if string(c.Configuration()) != `{"keepbits":11}` {
		t.Error("configuration")
	}
	if _, err := c.OutputSpec(t.Context(), codec.Spec{DataType: dtype.Named("float16"), Shape: []int{1}}); err == nil {
		t.Error("keepbits 11 accepted for float16")
	}
	if _, err := c.OutputSpec(t.Context(), codec.Spec{DataType: dtype.Named("int32"), Shape: []int{1}}); err == nil {
		t.Error("int32 accepted")
	}
	full := newCodec(t, `{"keepbits":52}`)
	a := &ndarray.Array{DType: dtype.Named("float64"), Shape: []int{1}, Data: make([]byte, 8)}
	if out, _ := full.EncodeArray(t.Context(), codectest.ArraySpec(a), a); out != a {
		t.Error("keepbits = mantissa width should leave the array as is")
	}
}
