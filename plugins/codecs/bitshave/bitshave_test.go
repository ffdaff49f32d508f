package bitshave

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"testing"

	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/codec/codectest"
	"github.com/zarrgw/zarrgw/core/dtype"
	"github.com/zarrgw/zarrgw/core/ndarray"
)

func build(t *testing.T, keepbits int) codec.ArrayArray {
	t.Helper()
	c, err := New(context.Background(), json.RawMessage(fmt.Sprintf(`{"keepbits":%d}`, keepbits)), nil)
	if err != nil {
		t.Fatal(err)
	}
	return c.(codec.ArrayArray)
}

func float32s(vs ...float32) *ndarray.Array {
	a := ndarray.New(dtype.Named("float32"), []int{len(vs)})
	for i, v := range vs {
		binary.LittleEndian.PutUint32(a.Data[4*i:], math.Float32bits(v))
	}
	return a
}

// Shaving truncates toward zero and keeps exactly keepbits mantissa bits.
func TestShaveFloat32(t *testing.T) {
	c := build(t, 2)
	in := float32s(1.875, -1.875, 3.3, float32(math.NaN()), float32(math.Inf(-1)), 0)
	spec := codec.Spec{DataType: in.DType, Shape: in.Shape}
	out, err := c.EncodeArray(context.Background(), spec, in)
	if err != nil {
		t.Fatal(err)
	}
	want := []float32{1.75, -1.75, 3.0}
	for i, w := range want {
		if got := math.Float32frombits(binary.LittleEndian.Uint32(out.Data[4*i:])); got != w {
			t.Errorf("element %d: %v, want %v", i, got, w)
		}
	}
	if got := math.Float32frombits(binary.LittleEndian.Uint32(out.Data[12:])); !math.IsNaN(float64(got)) {
		t.Errorf("NaN became %v", got)
	}
	if got := math.Float32frombits(binary.LittleEndian.Uint32(out.Data[16:])); !math.IsInf(float64(got), -1) {
		t.Errorf("-Inf became %v", got)
	}
	if got := math.Float32frombits(binary.LittleEndian.Uint32(in.Data[0:])); got != 1.875 {
		t.Errorf("input modified: %v", got)
	}
}

func TestRefusals(t *testing.T) {
	if _, err := New(context.Background(), json.RawMessage(`{"keepbits":53}`), nil); err == nil {
		t.Error("keepbits 53 accepted")
	}
	if _, err := New(context.Background(), json.RawMessage(`{}`), nil); err == nil {
		t.Error("missing keepbits accepted")
	}
	c := build(t, 30)
	if _, err := c.OutputSpec(context.Background(), codec.Spec{DataType: dtype.Named("float32")}); err == nil {
		t.Error("keepbits 30 accepted for float32")
	}
	if _, err := c.OutputSpec(context.Background(), codec.Spec{DataType: dtype.Named("int32")}); err == nil {
		t.Error("int32 accepted")
	}
}

// The codec passes the codec conformance suite (the plugin tests run it
// out of process, through the plugin binary).
func TestConformance(t *testing.T) {
	codectest.Run(t, codec.NewRegistry(Registration), []codectest.Case{{
		Name: Name, Configuration: json.RawMessage(`{"keepbits":3}`),
		Specs: codectest.Specs(codectest.Named("float32", "float64"), []int{0}, []int{9}, []int{3, 4}),
		Lossy: true, Values: codectest.FiniteFloats,
	}})
}
