package dtype

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
)

// IEEE 754 binary16 has no Go type; these helpers convert its bit patterns.

// The binary16 layout: a sign bit, 5 exponent bits biased by 15, and 10
// stored mantissa bits under an implicit leading 1 (for normal numbers).
const (
	f16MinNormalExp = -14 // exponent of the smallest normal float16
	f16SubnormalExp = -24 // exponent of the float16 subnormal quantum

	f16SignBit    = 0x8000
	f16MantBits   = 10                 // stored mantissa bits
	f16MantMask   = 1<<f16MantBits - 1 // the stored mantissa
	f16Implicit   = 1 << f16MantBits   // the leading 1 of a normal number, not stored
	f16Precision  = f16MantBits + 1    // significant bits of a normal number
	f16Bias       = 15                 // exponent bias
	f16ExpAllOnes = 0x1f               // biased exponent of infinities and NaNs
)

// F16ToFloat64 converts binary16 bits to float64 exactly (every float16 is
// a float64). NaN payloads are not carried over.
func F16ToFloat64(h uint16) float64 {
	exp := int(h>>f16MantBits) & f16ExpAllOnes
	mant := uint64(h & f16MantMask)
	var f float64
	switch exp {
	case 0:
		f = math.Ldexp(float64(mant), f16SubnormalExp)
	case f16ExpAllOnes:
		if mant == 0 {
			f = math.Inf(1)
		} else {
			f = math.NaN()
		}
	default:
		f = math.Ldexp(float64(mant|f16Implicit), exp-f16Bias-f16MantBits)
	}
	if h&f16SignBit != 0 {
		f = -f
	}
	return f
}

// parseF16 rounds the decimal JSON number tok to the nearest float16
// (ties to even) straight from the decimal, so a value close to a float16
// halfway point is not rounded twice (decimal -> float64 -> float16).
func parseF16(tok string) (uint16, error) {
	f, err := strconv.ParseFloat(tok, 64)
	if err != nil && !isRangeErr(err) {
		return 0, err
	}
	var sign uint16
	if math.Signbit(f) {
		sign = f16SignBit
	}
	a := math.Abs(f)
	switch {
	case a > 65536: // even with float64 rounding slack this overflows
		return 0, errOutOfRange
	case a < 0x1p-30: // far below half the smallest subnormal
		return sign, nil
	}
	r, ok := new(big.Rat).SetString(tok)
	if !ok {
		return 0, fmt.Errorf("invalid number %q", tok)
	}
	bits, err := ratToF16(r.Abs(r))
	if err != nil {
		return 0, err
	}
	return sign | bits, nil
}

// ratToF16 rounds a non-negative rational to float16 bits.
func ratToF16(r *big.Rat) (uint16, error) {
	minNormal := new(big.Rat).SetFloat64(math.Ldexp(1, f16MinNormalExp))
	if r.Cmp(minNormal) < 0 {
		// Subnormal range: round r / 2^-24 to an integer, ties to even.
		// The result 1024 is the smallest normal, which encodes the same way.
		q := new(big.Rat).Mul(r, new(big.Rat).SetInt64(1<<-f16SubnormalExp))
		return uint16(roundHalfEven(q)), nil
	}
	f := new(big.Float).SetPrec(f16Precision).SetMode(big.ToNearestEven).SetRat(r)
	mant := new(big.Float)
	exp := f.MantExp(mant) // f = mant * 2^exp, 0.5 <= mant < 1
	biased := exp - 1 + f16Bias
	if biased >= f16ExpAllOnes {
		return 0, errOutOfRange
	}
	m, _ := mant.SetMantExp(mant, f16Precision).Int64() // 1024 <= m < 2048, exact
	return uint16(biased)<<f16MantBits | uint16(m-f16Implicit), nil
}

// roundHalfEven rounds a non-negative rational to an integer.
func roundHalfEven(q *big.Rat) int64 {
	n, rem := new(big.Int).QuoRem(q.Num(), q.Denom(), new(big.Int))
	twice := new(big.Int).Lsh(rem, 1)
	if c := twice.Cmp(q.Denom()); c > 0 || (c == 0 && n.Bit(0) == 1) {
		n.Add(n, big.NewInt(1))
	}
	return n.Int64()
}

// formatF16 writes a finite float16 as the shortest decimal that rounds
// back to the same bits.
func formatF16(h uint16) string {
	f := F16ToFloat64(h)
	for prec := 0; prec < 17; prec++ {
		s := strconv.FormatFloat(f, 'e', prec, 64)
		if back, err := parseF16(s); err == nil && back == h {
			g, _ := strconv.ParseFloat(s, 64)
			return pyFloat(g, 64)
		}
	}
	return pyFloat(f, 64) // exact value; unreachable in practice
}
