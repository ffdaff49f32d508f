package numeric

import "math"

// HalfToFloat32 converts IEEE binary16 bits to float32 (exact).
func HalfToFloat32(h uint16) float32 {
	sign := uint32(h&0x8000) << 16
	exp := uint32(h>>10) & 0x1f
	mant := uint32(h & 0x3ff)
	switch {
	case exp == 0x1f: // inf, nan (payload kept in the high mantissa bits)
		return math.Float32frombits(sign | 0x7f800000 | mant<<13)
	case exp != 0:
		return math.Float32frombits(sign | (exp+112)<<23 | mant<<13)
	case mant == 0:
		return math.Float32frombits(sign)
	}
	// subnormal half: normalise
	e := uint32(113)
	for mant&0x400 == 0 {
		mant <<= 1
		e--
	}
	return math.Float32frombits(sign | e<<23 | (mant&0x3ff)<<13)
}

// Float64ToHalf rounds f to the nearest binary16 (ties to even), straight
// from float64 so no double rounding happens. NaN stays NaN (quiet).
func Float64ToHalf(f float64) uint16 {
	bits := math.Float64bits(f)
	sign := uint16(bits>>48) & 0x8000
	exp := int(bits>>52) & 0x7ff
	mant := bits & (1<<52 - 1)
	if exp == 0x7ff {
		if mant != 0 {
			return sign | 0x7e00 | uint16(mant>>42)
		}
		return sign | 0x7c00
	}
	e := exp - 1023 // unbiased
	if e > 15 {
		return sign | 0x7c00
	}
	if e >= -14 { // normal half: keep 10 mantissa bits of 52
		h := uint64(e+15)<<10 | mant>>42
		return sign | uint16(roundShift(h<<42|mant&(1<<42-1), 42))
	}
	if exp == 0 || e < -25 { // float64 subnormal, or below half the smallest half subnormal
		return sign
	}
	// subnormal half: value = full * 2^(e-52), quantum 2^-24
	full := mant | 1<<52
	return sign | uint16(roundShift(full, uint(52-(e+24))))
}

// roundShift returns v >> s rounded to nearest, ties to even. A carry out
// of the mantissa rolls into the exponent, which is the correct result.
func roundShift(v uint64, s uint) uint64 {
	q := v >> s
	rem := v & (1<<s - 1)
	half := uint64(1) << (s - 1)
	if rem > half || rem == half && q&1 == 1 {
		q++
	}
	return q
}

// Float32ToHalf rounds f to the nearest binary16 (float32 -> float64 is
// exact, so this rounds once).
func Float32ToHalf(f float32) uint16 { return Float64ToHalf(float64(f)) }
