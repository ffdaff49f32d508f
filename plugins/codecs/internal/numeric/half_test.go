package numeric

import (
	"math"
	"testing"
)

// Worked values from the IEEE 754 binary16 definition.
func TestHalfKnownValues(t *testing.T) {
	cases := []struct {
		f float64
		h uint16
	}{
		{0, 0x0000}, {math.Copysign(0, -1), 0x8000}, {1, 0x3c00}, {-2, 0xc000},
		{65504, 0x7bff}, {0x1p-14, 0x0400}, {0x1p-24, 0x0001}, {0.333251953125, 0x3555},
		{math.Inf(1), 0x7c00}, {math.Inf(-1), 0xfc00}, {-1000.5, 0xe3d1},
		{65520, 0x7c00},             // halfway to overflow rounds to inf
		{1 + 0x1p-11, 0x3c00},       // tie, even stays
		{1 + 3*0x1p-11, 0x3c02},     // tie, odd rounds up
		{0x1p-25, 0x0000},           // tie below smallest subnormal -> 0
		{0x1p-25 + 0x1p-40, 0x0001}, // just above the tie
		{0x1p-14 - 0x1p-25, 0x0400}, // rounds up into the normal range
	}
	for _, c := range cases {
		if got := Float64ToHalf(c.f); got != c.h {
			t.Errorf("Float64ToHalf(%v) = %#04x, want %#04x", c.f, got, c.h)
		}
	}
	if h := Float64ToHalf(math.NaN()); h&0x7c00 != 0x7c00 || h&0x3ff == 0 {
		t.Errorf("NaN -> %#04x", h)
	}
}

// Every finite half survives half -> float32 -> half unchanged.
func TestHalfRoundTripAll(t *testing.T) {
	for h := range 1 << 16 {
		f := HalfToFloat32(uint16(h))
		if math.IsNaN(float64(f)) {
			continue
		}
		if back := Float32ToHalf(f); back != uint16(h) {
			t.Fatalf("%#04x -> %v -> %#04x", h, f, back)
		}
	}
}
