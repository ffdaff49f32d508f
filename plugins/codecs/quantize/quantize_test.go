package quantize

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"math"
	"testing"

	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/dtype"
	"github.com/zarrgw/zarrgw/core/ndarray"
)

// numcodecs' documented example: Quantize(digits=1, dtype='f8') on
// linspace(0, 1, 10) gives multiples of 1/16.
func TestNumcodecsExample(t *testing.T) {
	c, err := New(context.Background(), json.RawMessage(`{"digits":1,"dtype":"<f8"}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{0, 0.125, 0.25, 0.3125, 0.4375, 0.5625, 0.6875, 0.75, 0.875, 1}
	f8 := dtype.Named("float64")
	a := ndarray.New(f8, []int{10})
	for i := 0; i < 10; i++ {
		binary.LittleEndian.PutUint64(a.Data[8*i:], math.Float64bits(float64(i)/9))
	}
	spec := codec.Spec{DataType: f8, Shape: []int{10}, DecodedSize: -1}
	enc, err := c.(*Codec).EncodeArray(context.Background(), spec, a)
	if err != nil {
		t.Fatal(err)
	}
	dec, err := c.(*Codec).DecodeArray(context.Background(), spec, enc)
	if err != nil {
		t.Fatal(err)
	}
	for i, w := range want {
		if got := math.Float64frombits(binary.LittleEndian.Uint64(dec.Data[8*i:])); got != w {
			t.Errorf("element %d = %v, want %v", i, got, w)
		}
	}
}

func TestRejectsIntegers(t *testing.T) {
	if _, err := New(context.Background(), json.RawMessage(`{"digits":1,"dtype":"<i4"}`), nil); err == nil {
		t.Fatal("integer dtype accepted")
	}
	if _, err := New(context.Background(), json.RawMessage(`{"dtype":"<f4"}`), nil); err == nil {
		t.Fatal("missing digits accepted")
	}
}
