package pluginapi

import (
	"math"
	"slices"
	"testing"
)

// A chunk shape from the wire is refused when an extent is negative or
// its elements cannot be counted in an int64.
func TestShapeFromPB(t *testing.T) {
	for _, p := range [][]int64{{-1}, {-2, -2}, {1 << 32, 1 << 31}, {math.MaxInt64, 2}} {
		if s, err := shapeFromPB(p); err == nil {
			t.Errorf("shape %v: taken as %v", p, s)
		}
	}
	for _, p := range [][]int64{nil, {0, math.MaxInt64, math.MaxInt64}, {1 << 31, 1 << 31}, {3, 4}} {
		s, err := shapeFromPB(p)
		if err != nil || !slices.Equal(shapeToPB(s), p) {
			t.Errorf("shape %v: %v %v", p, s, err)
		}
	}
}
