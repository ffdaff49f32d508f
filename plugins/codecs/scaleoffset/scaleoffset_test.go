package scaleoffset

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/dtype"
	"github.com/zarrgw/zarrgw/core/ndarray"
)

func build(t *testing.T, cfg string) codec.ArrayArray {
	t.Helper()
	c, err := New(context.Background(), json.RawMessage(cfg), nil)
	if err != nil {
		t.Fatalf("%s: %v", cfg, err)
	}
	return c.(codec.ArrayArray)
}

// The spec's float32 example: (x - 5) * 0.1, each step rounded to float32,
// and back y / 0.1 + 5.
func TestFloat32(t *testing.T) {
	c := build(t, `{"offset":5,"scale":0.1}`)
	in := []float32{5, 6, 100.25, -3.5, float32(math.Inf(1))}
	a := ndarray.New(dtype.Named("float32"), []int{len(in)})
	for i, f := range in {
		binary.LittleEndian.PutUint32(a.Data[4*i:], math.Float32bits(f))
	}
	spec := codec.Spec{DataType: a.DType, Shape: a.Shape}
	enc, err := c.EncodeArray(context.Background(), spec, a)
	if err != nil {
		t.Fatal(err)
	}
	dec, err := c.DecodeArray(context.Background(), spec, enc)
	if err != nil {
		t.Fatal(err)
	}
	for i, x := range in {
		want := (x - 5) * float32(0.1)
		if got := math.Float32frombits(binary.LittleEndian.Uint32(enc.Data[4*i:])); got != want {
			t.Errorf("encode %v: %v, want %v", x, got, want)
		}
		back := want/float32(0.1) + 5
		if got := math.Float32frombits(binary.LittleEndian.Uint32(dec.Data[4*i:])); got != back {
			t.Errorf("decode %v: %v, want %v", want, got, back)
		}
	}
}

// Integer arithmetic is exact or an error: overflow and inexact
// division are refused, naming the codec.
func TestIntegers(t *testing.T) {
	c := build(t, `{"offset":1000,"scale":2}`)
	a := ndarray.New(dtype.Named("uint16"), []int{3})
	for i, v := range []uint16{1000, 1255, 1001} {
		binary.LittleEndian.PutUint16(a.Data[2*i:], v)
	}
	spec := codec.Spec{DataType: a.DType, Shape: a.Shape, FillValue: []byte{0xe8, 0x03}}
	out, err := c.OutputSpec(context.Background(), spec)
	if err != nil || binary.LittleEndian.Uint16(out.FillValue) != 0 {
		t.Fatalf("fill 1000 encodes to %v, %v", out.FillValue, err)
	}
	enc, err := c.EncodeArray(context.Background(), spec, a)
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []uint16{0, 510, 2} {
		if got := binary.LittleEndian.Uint16(enc.Data[2*i:]); got != want {
			t.Errorf("encode element %d: %d, want %d", i, got, want)
		}
	}
	dec, err := c.DecodeArray(context.Background(), spec, enc)
	if err != nil || string(dec.Data) != string(a.Data) {
		t.Errorf("decode: %v %v", dec, err)
	}
	binary.LittleEndian.PutUint16(a.Data, 999) // 999 - 1000 < 0
	if _, err := c.EncodeArray(context.Background(), spec, a); err == nil || !strings.Contains(err.Error(), "scale_offset: element 0") {
		t.Errorf("999 - 1000 in uint16: %v", err)
	}
	binary.LittleEndian.PutUint16(enc.Data, 3) // 3 / 2 is not an integer
	if _, err := c.DecodeArray(context.Background(), spec, enc); err == nil || !strings.Contains(err.Error(), "exact quotient") {
		t.Errorf("3 / 2 in uint16: %v", err)
	}
	u := ndarray.New(dtype.Named("uint64"), []int{1}) // 0 - 1 borrows out of 64 bits
	if _, err := build(t, `{"offset":1}`).EncodeArray(context.Background(), codec.Spec{DataType: u.DType, Shape: u.Shape}, u); err == nil {
		t.Error("0 - 1 in uint64 did not fail")
	}
	b := ndarray.New(dtype.Named("int8"), []int{1})
	b.Data[0] = 100
	if _, err := build(t, `{"scale":2}`).EncodeArray(context.Background(), codec.Spec{DataType: b.DType, Shape: b.Shape}, b); err == nil {
		t.Error("100 * 2 in int8 did not fail")
	}
}

// The cases of zarr-metadata's conformance documents build, and take a
// float64 array with fill value 0; no configuration is the identity.
func TestFixtureCases(t *testing.T) {
	f64 := dtype.Named("float64")
	for _, cfg := range []string{``, `{}`, `{"offset":5}`, `{"scale":0.1}`, `{"offset":5,"scale":0.1}`, `{"offset":"NaN"}`} {
		c := build(t, cfg)
		if _, err := c.OutputSpec(context.Background(), codec.Spec{DataType: f64, Shape: []int{2}, FillValue: make([]byte, 8)}); err != nil {
			t.Errorf("%s: %v", cfg, err)
		}
	}
	a := ndarray.New(f64, []int{2})
	binary.LittleEndian.PutUint64(a.Data, math.Float64bits(1.5))
	enc, err := build(t, ``).EncodeArray(context.Background(), codec.Spec{DataType: f64, Shape: a.Shape}, a)
	if err != nil || string(enc.Data) != string(a.Data) {
		t.Errorf("no configuration changed the data: %v %v", enc, err)
	}
}

// Bad configuration names the codec and the field.
func TestBadConfiguration(t *testing.T) {
	if _, err := New(context.Background(), json.RawMessage(`{"offset":1,"astype":"u1"}`), nil); err == nil || !strings.Contains(err.Error(), "astype") {
		t.Errorf("unknown key: %v", err)
	}
	i16 := codec.Spec{DataType: dtype.Named("int16"), Shape: []int{1}}
	for cfg, want := range map[string]string{`{"scale":0.5}`: "scale", `{"offset":"x"}`: "offset", `{"scale":0}`: "scale 0", `{"offset":null}`: "offset"} {
		if _, err := build(t, cfg).OutputSpec(context.Background(), i16); err == nil || !strings.Contains(err.Error(), "scale_offset: "+want) {
			t.Errorf("%s on int16: %v", cfg, err)
		}
	}
	if _, err := build(t, `{}`).OutputSpec(context.Background(), codec.Spec{DataType: dtype.Named("string")}); err == nil {
		t.Error("string array accepted")
	}
}
