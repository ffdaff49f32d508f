// Package checked is integer arithmetic that reports overflow instead of
// wrapping around. Sizes computed from input (a metadata document's shapes,
// a request's selection, the memory a read will hold) go through it: Go's
// integers wrap silently, and a wrapped size is a small or negative number
// that passes every bound checked after it.
package checked

import (
	"math"
	"math/bits"
)

// Integer is the integer types sizes are kept in.
type Integer interface{ ~int | ~int64 }

// Unsigned is the unsigned types CeilDiv also takes: a count beyond
// int64, such as the length of a range spanning all of int64.
type Unsigned interface{ ~uint | ~uint64 }

// Mul is a*b, and false when the product does not fit in T.
func Mul[T Integer](a, b T) (T, bool) {
	if a == 0 || b == 0 {
		return 0, true
	}
	c := a * b
	// c/b undoes a*b exactly unless it wrapped; -1 * min is the one
	// product that wraps onto a value that divides back.
	if c/b != a || (a == -1 && b == minOf[T]()) || (b == -1 && a == minOf[T]()) {
		return 0, false
	}
	return c, true
}

// Add is a+b, and false when the sum does not fit in T.
func Add[T Integer](a, b T) (T, bool) {
	c := a + b
	if (b > 0 && c < a) || (b < 0 && c > a) {
		return 0, false
	}
	return c, true
}

// Sub is a-b, and false when the difference does not fit in T.
func Sub[T Integer](a, b T) (T, bool) {
	c := a - b
	if (b > 0 && c > a) || (b < 0 && c < a) {
		return 0, false
	}
	return c, true
}

// Product is the product of extents (1 for none), and false when one is
// negative or the product does not fit in T.
func Product[T Integer](extents []T) (T, bool) {
	p := T(1)
	for _, n := range extents {
		if n < 0 {
			return 0, false
		}
		var ok bool
		if p, ok = Mul(p, n); !ok {
			return 0, false
		}
	}
	return p, true
}

// CeilDiv is a/b rounded up, for a >= 0 and b > 0; unlike (a+b-1)/b it
// cannot wrap.
func CeilDiv[T Integer | Unsigned](a, b T) T {
	if a == 0 {
		return 0
	}
	return (a-1)/b + 1
}

func minOf[T Integer]() T {
	var zero T
	switch any(zero).(type) {
	case int:
		return T(math.MinInt)
	}
	return T(math.MinInt64)
}

// Calc computes a size in several steps and remembers whether any step
// overflowed, so that a formula reads as one expression and is checked
// once at its end (as bufio.Writer keeps its first error). A step that
// overflows gives math.MaxInt64, the most a size can be, so that what
// follows stays well defined. The zero value is ready to use.
type Calc struct {
	over bool
}

// Mul is a*b (see Calc).
func (c *Calc) Mul(a, b int64) int64 {
	n, ok := Mul(a, b)
	return c.keep(n, ok)
}

// Add is a+b (see Calc).
func (c *Calc) Add(a, b int64) int64 {
	n, ok := Add(a, b)
	return c.keep(n, ok)
}

// Product is the product of extents (see Calc).
func (c *Calc) Product(extents []int) int64 {
	n, ok := Product(extents)
	return c.keep(int64(n), ok)
}

func (c *Calc) keep(n int64, ok bool) int64 {
	if !ok {
		c.over = true
		return math.MaxInt64
	}
	return n
}

// Overflowed reports whether a step overflowed: every result since is
// meaningless.
func (c *Calc) Overflowed() bool { return c.over }

// MulDiv is a*b/c rounded down, for a, b >= 0 and c > 0 whose quotient
// fits in T, computed without the product overflowing (in 128 bits).
func MulDiv[T Integer](a, b, c T) T {
	hi, lo := bits.Mul64(uint64(a), uint64(b))
	q, _ := bits.Div64(hi, lo, uint64(c))
	return T(q)
}
