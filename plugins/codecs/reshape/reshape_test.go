package reshape

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/dtype"
	"github.com/zarrgw/zarrgw/core/ndarray"
)

func outShape(t *testing.T, cfg string, in []int) ([]int, error) {
	t.Helper()
	c, err := New(context.Background(), json.RawMessage(cfg), nil)
	if err != nil {
		return nil, err
	}
	s, err := c.(codec.ArrayArray).OutputSpec(context.Background(), codec.Spec{DataType: dtype.Named("uint8"), Shape: in})
	return s.Shape, err
}

// Output shapes: the spec's example, -1, an empty list of inputs.
func TestShapes(t *testing.T) {
	for _, k := range []struct {
		cfg      string
		in, want []int
	}{
		{`{"shape":[[0,1],[2],3]}`, []int{100, 50, 64, 3}, []int{5000, 64, 3}},
		{`{"shape":[-1]}`, []int{4, 5, 6}, []int{120}},
		{`{"shape":[2,-1,3]}`, []int{4, 3}, []int{2, 2, 3}},
		{`{"shape":[[],[0],[1]]}`, []int{4, 3}, []int{1, 4, 3}},
		{`{"shape":[[0],-1]}`, []int{0, 3}, nil},
	} {
		got, err := outShape(t, k.cfg, k.in)
		if k.want == nil {
			if err == nil {
				t.Errorf("%s on %v: %v, want an error", k.cfg, k.in, got)
			}
			continue
		}
		if err != nil || !slices.Equal(got, k.want) {
			t.Errorf("%s on %v: %v %v, want %v", k.cfg, k.in, got, err, k.want)
		}
	}
}

// The spec's refusals, each naming the codec.
func TestRefusals(t *testing.T) {
	for cfg, in := range map[string][]int{
		`{"shape":[[1],[0]]}`:        {2, 3},
		`{"shape":[[1,0],6]}`:        {2, 3},
		`{"shape":[-1,-1]}`:          {2, 3},
		`{"shape":[5]}`:              {2, 3},
		`{"shape":[[1],-1]}`:         {2, 3},
		`{"shape":[0]}`:              {0},
		`{"shape":[4,[2]]}`:          {2, 3},
		`{"shape":["x"]}`:            {2},
		`{}`:                         {2},
		`{"shape":[-1],"order":"C"}`: {2},
	} {
		if got, err := outShape(t, cfg, in); err == nil || !strings.Contains(err.Error(), "reshape") {
			t.Errorf("%s on %v: %v %v, want an error", cfg, in, got, err)
		}
	}
}

// Round trip: the elements keep their order.
func TestRoundTrip(t *testing.T) {
	c, _ := New(context.Background(), json.RawMessage(`{"shape":[[0,1],-1]}`), nil)
	aa := c.(codec.ArrayArray)
	a := ndarray.New(dtype.Named("int16"), []int{2, 3, 4})
	for i := range a.Data {
		a.Data[i] = byte(i)
	}
	in := codec.Spec{DataType: a.DType, Shape: a.Shape}
	enc, err := aa.EncodeArray(context.Background(), in, a)
	if err != nil || !slices.Equal(enc.Shape, []int{6, 4}) || string(enc.Data) != string(a.Data) {
		t.Fatalf("encode: %v %v", enc, err)
	}
	dec, err := aa.DecodeArray(context.Background(), in, enc)
	if err != nil || !slices.Equal(dec.Shape, a.Shape) || string(dec.Data) != string(a.Data) {
		t.Fatalf("decode: %v %v", dec, err)
	}
}
