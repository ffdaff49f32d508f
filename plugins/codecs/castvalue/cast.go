package castvalue

import (
	"errors"
	"fmt"
	"math"
	"math/big"

	"github.com/zarrgw/zarrgw/core/dtype"
	"github.com/zarrgw/zarrgw/plugins/codecs/internal/numeric"
)

// rounding is the configured rounding of values the target type cannot
// hold exactly.
type rounding int

const (
	nearestEven rounding = iota
	towardsZero
	towardsPositive
	towardsNegative
	nearestAway
)

var roundings = map[string]rounding{
	"nearest-even": nearestEven, "towards-zero": towardsZero, "towards-positive": towardsPositive,
	"towards-negative": towardsNegative, "nearest-away": nearestAway,
}

// outOfRange is what happens to values beyond the target type's range.
type outOfRange int

const (
	refuse outOfRange = iota // no out_of_range: such a value is an error
	clamp
	wrap
)

var outOfRanges = map[string]outOfRange{"clamp": clamp, "wrap": wrap}

// errUnrepresentable is wrapped when a value has no image in the target
// type under the configuration.
var errUnrepresentable = errors.New("not representable")

// kind is the numeric view of a data type for casting: its arithmetic
// type and, for integers, the bits that carry a value.
type kind struct {
	dt   dtype.DataType
	num  numeric.Type
	bits int
}

// kindOf is the numeric view of dt: integer and float types, and the
// numpy datetime64/timedelta64 types as the int64 counts they hold.
func kindOf(dt dtype.DataType) (kind, error) {
	if dt.Kind == dtype.Datetime || dt.Kind == dtype.Timedelta {
		return kind{dt: dt, num: numeric.Type{Kind: dtype.Int, Size: 8}, bits: 64}, nil
	}
	if dt.Kind == dtype.Bool {
		return kind{}, fmt.Errorf("data type %s is not a number type", dt)
	}
	t, err := numeric.Of(dt)
	if err != nil {
		return kind{}, err
	}
	return kind{dt: dt, num: t, bits: numeric.BitWidth(dt)}, nil
}

func (k kind) signed() bool { return k.num.Kind == dtype.Int }

// caster casts values of one type to another with a rounding and an
// out-of-range rule.
type caster struct {
	from, to kind
	round    rounding
	oor      outOfRange
}

// cast converts one value, or says why it cannot.
func (c caster) cast(v numeric.Value) (numeric.Value, error) {
	if v.Float && (math.IsNaN(v.F) || math.IsInf(v.F, 0)) {
		if c.to.num.IsFloat() {
			return v, nil // NaN propagates; infinities are values of the type
		}
		return v, fmt.Errorf("%w: %v has no value in %s (map it with scalar_map)", errUnrepresentable, v.F, c.to.dt)
	}
	if c.to.num.IsFloat() {
		return c.toFloat(v)
	}
	return c.toInt(v)
}

// toInt rounds v to an integer, then fits it into the target's range.
func (c caster) toInt(v numeric.Value) (numeric.Value, error) {
	lo, hi := numeric.IntRange(c.to.signed(), c.to.bits)
	if v.Float {
		f := roundFloat(v.F, c.round)
		switch {
		case f < float64(lo):
			return c.beyond(v, f, c.to.signed(), lo, hi, false)
		case f > float64(hi) || (f == float64(hi) && c.to.bits == 64):
			// float64(MaxInt64) and float64(MaxUint64) round up past hi
			return c.beyond(v, f, c.to.signed(), lo, hi, true)
		}
		if f < 0 {
			return numeric.Int(int64(f)), nil
		}
		return numeric.Value{Signed: c.to.signed(), Bits: uint64(f)}, nil
	}
	below := v.Signed && int64(v.Bits) < lo
	above := (!v.Signed || int64(v.Bits) >= 0) && v.Bits > hi
	if !below && !above {
		return numeric.Value{Signed: c.to.signed(), Bits: v.Bits}, nil
	}
	switch c.oor {
	case clamp:
		return clampInt(c.to.signed(), lo, hi, above), nil
	case wrap:
		return wrapBits(v.Bits, c.to.signed(), c.to.bits), nil
	}
	return v, fmt.Errorf("%w: %s is out of the range of %s (set out_of_range)", errUnrepresentable, show(v), c.to.dt)
}

// beyond handles a float rounded to f, beyond the integer target's range.
func (c caster) beyond(v numeric.Value, f float64, signed bool, lo int64, hi uint64, above bool) (numeric.Value, error) {
	switch c.oor {
	case clamp:
		return clampInt(signed, lo, hi, above), nil
	case wrap:
		// f is an integer beyond 2^63 in magnitude or within it: its
		// residue modulo 2^64 keeps the low bits the target wraps to.
		i, _ := new(big.Float).SetFloat64(f).Int(nil)
		m := new(big.Int).Lsh(big.NewInt(1), 64)
		i.Mod(i, m)
		return wrapBits(i.Uint64(), signed, c.to.bits), nil
	}
	return v, fmt.Errorf("%w: %v is out of the range of %s (set out_of_range)", errUnrepresentable, v.F, c.to.dt)
}

func clampInt(signed bool, lo int64, hi uint64, above bool) numeric.Value {
	if above {
		return numeric.Value{Signed: signed, Bits: hi}
	}
	return numeric.Value{Signed: signed, Bits: uint64(lo)}
}

// wrapBits keeps the low bits of u: two's complement for signed types.
func wrapBits(u uint64, signed bool, bits int) numeric.Value {
	shift := 64 - uint(bits)
	if signed {
		return numeric.Int(int64(u<<shift) >> shift)
	}
	return numeric.Value{Bits: u << shift >> shift}
}

// roundFloat rounds f to an integer by r.
func roundFloat(f float64, r rounding) float64 {
	switch r {
	case towardsZero:
		return math.Trunc(f)
	case towardsPositive:
		return math.Ceil(f)
	case towardsNegative:
		return math.Floor(f)
	case nearestAway:
		return math.Round(f)
	}
	return math.RoundToEven(f)
}

// toFloat rounds v to the target float type. The target's own cast gives
// the nearest value, ties to even; the other roundings pick that value or
// its neighbour on the other side of v, found by stepping the encoding.
func (c caster) toFloat(v numeric.Value) (numeric.Value, error) {
	near := c.to.num.Cast(v)
	exact := exactOf(v)
	cmp := exactOf(near).Cmp(exact)
	if math.IsInf(near.F, 0) {
		cmp = int(math.Copysign(1, near.F))
	}
	r := near
	if cmp != 0 {
		lo, hi := near, near
		var ok bool
		if cmp > 0 {
			lo, ok = c.step(near, false)
		} else {
			hi, ok = c.step(near, true)
		}
		if ok {
			r = pick(c.round, v, exact, near, lo, hi)
		}
	}
	if math.IsInf(r.F, 0) || math.IsNaN(r.F) {
		// a finite value past the largest finite one
		if c.oor == clamp && math.IsInf(r.F, 0) {
			return r, nil
		}
		return v, fmt.Errorf("%w: %s is out of the range of %s (set out_of_range to clamp)", errUnrepresentable, show(v), c.to.dt)
	}
	return r, nil
}

// pick chooses between the neighbours lo < v < hi by the rounding.
func pick(r rounding, v numeric.Value, exact *big.Float, near, lo, hi numeric.Value) numeric.Value {
	positive := exact.Sign() > 0
	switch r {
	case towardsZero:
		if positive {
			return lo
		}
		return hi
	case towardsPositive:
		return hi
	case towardsNegative:
		return lo
	case nearestAway:
		if math.IsInf(hi.F, 0) || math.IsInf(lo.F, 0) {
			return near
		}
		below := new(big.Float).SetPrec(4096).Sub(exact, exactOf(lo))
		above := new(big.Float).SetPrec(4096).Sub(exactOf(hi), exact)
		if below.Cmp(above) == 0 { // a tie: away from zero
			if positive {
				return hi
			}
			return lo
		}
	}
	return near
}

// step returns the float of the target type next to f, upward or
// downward, by moving its encoding's magnitude one unit; ok is false when
// there is none (past the largest value of a type without infinities).
func (c caster) step(f numeric.Value, up bool) (numeric.Value, bool) {
	t := c.to.num
	buf := make([]byte, 8)
	t.Store(buf[:t.Size], f)
	bits := numeric.LoadBits(buf[:t.Size])
	negative := math.Signbit(f.F)
	if up == negative { // towards zero
		if bits&magnitudeMask(c.to.bits) == 0 { // ±0: the other zero's neighbour
			bits ^= 1 << (c.to.bits - 1)
			bits++
		} else {
			bits--
		}
	} else {
		bits++
	}
	numeric.StoreBits(buf[:t.Size], bits)
	g := t.Load(buf[:t.Size])
	if math.IsNaN(g.F) || (g.F != 0 && math.Signbit(g.F) != math.Signbit(f.F) && f.F != 0) {
		return f, false
	}
	return g, true
}

func magnitudeMask(bits int) uint64 { return 1<<(bits-1) - 1 }

// exactOf is v as an exact big.Float.
func exactOf(v numeric.Value) *big.Float {
	f := new(big.Float).SetPrec(4096)
	switch {
	case v.Float:
		if math.IsInf(v.F, 0) || math.IsNaN(v.F) {
			return f
		}
		return f.SetFloat64(v.F)
	case v.Signed:
		return f.SetInt64(int64(v.Bits))
	}
	return f.SetUint64(v.Bits)
}

func show(v numeric.Value) string {
	switch {
	case v.Float:
		return fmt.Sprint(v.F)
	case v.Signed:
		return fmt.Sprint(int64(v.Bits))
	}
	return fmt.Sprint(v.Bits)
}
