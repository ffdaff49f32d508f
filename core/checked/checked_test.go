package checked_test

import (
	"math"
	"math/big"
	"testing"

	"github.com/zarrgw/zarrgw/core/checked"
)

// want computes a result exactly (math/big) and says whether it fits in
// an int64.
func want(z *big.Int) (int64, bool) {
	if !z.IsInt64() {
		return 0, false
	}
	return z.Int64(), true
}

var edges = []int64{0, 1, -1, 2, -2, 3, 1 << 31, 1 << 32, 3037000499, 3037000500, 1 << 62, -(1 << 62),
	math.MaxInt64, math.MaxInt64 - 1, math.MinInt64, math.MinInt64 + 1, math.MaxInt32, 1 << 40, 1 << 30}

func TestMulAddAgainstBig(t *testing.T) {
	for _, a := range edges {
		for _, b := range edges {
			gotM, okM := checked.Mul(a, b)
			wantM, wokM := want(new(big.Int).Mul(big.NewInt(a), big.NewInt(b)))
			if okM != wokM || (okM && gotM != wantM) {
				t.Errorf("Mul(%d, %d) = %d, %v; want %d, %v", a, b, gotM, okM, wantM, wokM)
			}
			gotA, okA := checked.Add(a, b)
			wantA, wokA := want(new(big.Int).Add(big.NewInt(a), big.NewInt(b)))
			if okA != wokA || (okA && gotA != wantA) {
				t.Errorf("Add(%d, %d) = %d, %v; want %d, %v", a, b, gotA, okA, wantA, wokA)
			}
			gotS, okS := checked.Sub(a, b)
			wantS, wokS := want(new(big.Int).Sub(big.NewInt(a), big.NewInt(b)))
			if okS != wokS || (okS && gotS != wantS) {
				t.Errorf("Sub(%d, %d) = %d, %v; want %d, %v", a, b, gotS, okS, wantS, wokS)
			}
		}
	}
}

func TestProduct(t *testing.T) {
	for _, c := range []struct {
		shape []int
		n     int
		ok    bool
	}{
		{nil, 1, true},
		{[]int{}, 1, true},
		{[]int{3, 4, 5}, 60, true},
		{[]int{7, 0, 1 << 62}, 0, true},
		{[]int{1 << 40, 1 << 40}, 0, false},
		{[]int{1 << 31, 1 << 31, 2}, 0, false}, // 2^63: one past the largest int64
		{[]int{1 << 31, 1 << 31}, 1 << 62, true},
		{[]int{2, -3}, 0, false},
	} {
		if n, ok := checked.Product(c.shape); n != c.n || ok != c.ok {
			t.Errorf("Product(%v) = %d, %v; want %d, %v", c.shape, n, ok, c.n, c.ok)
		}
	}
}

func TestCeilDiv(t *testing.T) {
	for _, c := range [][3]int{{0, 5, 0}, {1, 5, 1}, {5, 5, 1}, {6, 5, 2}, {math.MaxInt, 2, 1 << 62}, {math.MaxInt, math.MaxInt, 1}, {math.MaxInt, 1, math.MaxInt}} {
		if got := checked.CeilDiv(c[0], c[1]); got != c[2] {
			t.Errorf("CeilDiv(%d, %d) = %d, want %d", c[0], c[1], got, c[2])
		}
	}
}

// CeilDiv takes unsigned counts too: the values of a range spanning all
// of int64 number more than an int64 holds.
func TestCeilDivUnsigned(t *testing.T) {
	for _, c := range [][3]uint64{{0, 3, 0}, {10, 3, 4}, {math.MaxUint64, 1, math.MaxUint64}, {math.MaxUint64, 1 << 63, 2}, {math.MaxUint64, math.MaxUint64, 1}} {
		if got := checked.CeilDiv(c[0], c[1]); got != c[2] {
			t.Errorf("CeilDiv(%d, %d) = %d, want %d", c[0], c[1], got, c[2])
		}
	}
}

func TestCalcRemembersOverflow(t *testing.T) {
	var c checked.Calc
	n := c.Add(c.Mul(1<<20, 1<<20), 5)
	if c.Overflowed() || n != 1<<40+5 {
		t.Fatalf("2^40+5 = %d, overflowed %v", n, c.Overflowed())
	}
	n = c.Add(c.Mul(c.Product([]int{1 << 40, 1 << 30}), 4), 1)
	if !c.Overflowed() || n != math.MaxInt64 {
		t.Fatalf("2^70*4+1 = %d, overflowed %v; want math.MaxInt64, true", n, c.Overflowed())
	}
	if c.Add(1, 1); !c.Overflowed() {
		t.Fatal("a later step that fits forgot the overflow")
	}
}

func FuzzMul(f *testing.F) {
	for _, e := range edges {
		f.Add(e, e)
	}
	f.Fuzz(func(t *testing.T, a, b int64) {
		got, ok := checked.Mul(a, b)
		w, wok := want(new(big.Int).Mul(big.NewInt(a), big.NewInt(b)))
		if ok != wok || (ok && got != w) {
			t.Fatalf("Mul(%d, %d) = %d, %v; want %d, %v", a, b, got, ok, w, wok)
		}
	})
}
