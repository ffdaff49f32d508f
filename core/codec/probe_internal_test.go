package codec

import (
	"math"
	"testing"

	"github.com/zarrgw/zarrgw/core/dtype"
)

// A chunk whose size is beyond an int64 is larger than any bound: a
// shard of 2^31 x 2^31 float64 holds 2^65 bytes, which a product that
// wrapped took for 0 bytes, small enough to encode whole.
func TestProbeSizeBeyondInt64(t *testing.T) {
	f64, err := dtype.ParseV3("float64")
	if err != nil {
		t.Fatal(err)
	}
	str, err := dtype.ParseV3("string")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		spec Spec
		want int64
	}{
		{Spec{DataType: f64, Shape: []int{1 << 31, 1 << 31}}, math.MaxInt64},
		{Spec{DataType: f64, Shape: []int{1 << 40, 1 << 40}}, math.MaxInt64},
		{Spec{DataType: str, Shape: []int{1 << 30, 1 << 30}}, math.MaxInt64},
		{Spec{DataType: f64, Shape: []int{1 << 30, 1 << 30}}, math.MaxInt64},
		{Spec{DataType: f64, Shape: []int{1 << 29, 1 << 30}}, 1 << 62},
		{Spec{DataType: str, Shape: []int{4, 5}}, 16 * 20},
		{Spec{DataType: f64, Shape: []int{0, 1 << 62}}, 0},
	} {
		if got := probeSize(c.spec); got != c.want {
			t.Errorf("probeSize(%s %v) = %d, want %d", c.spec.DataType.Name, c.spec.Shape, got, c.want)
		}
	}
	// and such a chunk is probed at a shape of at most the bound
	shape := probeShape(Spec{DataType: f64, Shape: []int{1 << 31, 1 << 31}}, DefaultProbeBytes)
	if n := probeSize(Spec{DataType: f64, Shape: shape}); n > DefaultProbeBytes {
		t.Errorf("probed at %v, %d bytes: more than %d", shape, n, DefaultProbeBytes)
	}
}
