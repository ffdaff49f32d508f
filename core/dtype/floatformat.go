package dtype

import (
	"fmt"
	"math"
	"math/big"
	"sort"
)

// FloatFormat describes a binary floating point format of at most 16 bits
// (the registry's bfloat16, float8, float6 and float4 types, tensorstore's
// and ml_dtypes' float8_e4m3fn, and IEEE binary16 as the component of
// complex_float16) well enough to convert its bit patterns to and from
// float64 exactly.
//
// The variants differ in what the all-ones exponent, the sign and zero
// mean (LLVM's naming: F finite, no infinities; N special NaN encoding;
// UZ unsigned zero; U unsigned):
//   - IEEE: the all-ones exponent holds infinities and NaNs (bfloat16,
//     float8_e3m4, float8_e4m3, float8_e5m2, float16).
//   - FN: no infinities; the all-ones exponent holds finite values but
//     for the all-ones magnitude, the NaN of either sign; -0 exists
//     (float8_e4m3fn).
//   - FNUZ: every code is finite except 0b1000... (the "negative zero"),
//     which is the only NaN; there is no -0 (float8_e4m3fnuz,
//     float8_e4m3b11fnuz, float8_e5m2fnuz).
//   - Finite: every code is finite; no NaN, no infinity (float6_e2m3fn,
//     float6_e3m2fn, float4_e2m1fn).
//   - E8M0: no sign, no mantissa, no zero and no subnormals; 0xff is NaN
//     (float8_e8m0fnu).
type FloatFormat struct {
	Name     string // registered data type name
	Bits     int    // width of the encoding: 16, 8, 6 or 4
	ExpBits  int
	MantBits int
	Bias     int
	Variant  FloatVariant
	// Unregistered marks a format the registry does not list, read and
	// written because tensorstore writes it (float8_e4m3fn, ml_dtypes'
	// name). It has no complex form: neither tensorstore nor ml_dtypes
	// has one.
	Unregistered bool
}

// FloatVariant says what a format's special codes mean; see FloatFormat.
type FloatVariant uint8

const (
	IEEE FloatVariant = iota
	FN
	FNUZ
	Finite
	E8M0
)

// floatFormats are the registered formats (zarr-extensions 4da7b37,
// data-types/<name>/README.md), float16, and float8_e4m3fn, which the
// registry lacks but tensorstore 0.1.86 writes (ml_dtypes 0.6.0's
// float8_e4m3fn: bias 7, NaN at 0x7f and 0xff, max 448).
var floatFormats = map[string]*FloatFormat{
	"float16":            {Name: "float16", Bits: 16, ExpBits: 5, MantBits: 10, Bias: 15, Variant: IEEE},
	"bfloat16":           {Name: "bfloat16", Bits: 16, ExpBits: 8, MantBits: 7, Bias: 127, Variant: IEEE},
	"float8_e3m4":        {Name: "float8_e3m4", Bits: 8, ExpBits: 3, MantBits: 4, Bias: 3, Variant: IEEE},
	"float8_e4m3":        {Name: "float8_e4m3", Bits: 8, ExpBits: 4, MantBits: 3, Bias: 7, Variant: IEEE},
	"float8_e4m3fn":      {Name: "float8_e4m3fn", Bits: 8, ExpBits: 4, MantBits: 3, Bias: 7, Variant: FN, Unregistered: true},
	"float8_e4m3b11fnuz": {Name: "float8_e4m3b11fnuz", Bits: 8, ExpBits: 4, MantBits: 3, Bias: 11, Variant: FNUZ},
	"float8_e4m3fnuz":    {Name: "float8_e4m3fnuz", Bits: 8, ExpBits: 4, MantBits: 3, Bias: 8, Variant: FNUZ},
	"float8_e5m2":        {Name: "float8_e5m2", Bits: 8, ExpBits: 5, MantBits: 2, Bias: 15, Variant: IEEE},
	"float8_e5m2fnuz":    {Name: "float8_e5m2fnuz", Bits: 8, ExpBits: 5, MantBits: 2, Bias: 16, Variant: FNUZ},
	"float8_e8m0fnu":     {Name: "float8_e8m0fnu", Bits: 8, ExpBits: 8, MantBits: 0, Bias: 127, Variant: E8M0},
	"float6_e2m3fn":      {Name: "float6_e2m3fn", Bits: 6, ExpBits: 2, MantBits: 3, Bias: 1, Variant: Finite},
	"float6_e3m2fn":      {Name: "float6_e3m2fn", Bits: 6, ExpBits: 3, MantBits: 2, Bias: 3, Variant: Finite},
	"float4_e2m1fn":      {Name: "float4_e2m1fn", Bits: 4, ExpBits: 2, MantBits: 1, Bias: 1, Variant: Finite},
}

// FloatFormats lists the float formats other than IEEE binary16/32/64, by
// name: the registered ones and float8_e4m3fn.
func FloatFormats() []string {
	var names []string
	for n := range floatFormats {
		if n != "float16" {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names
}

// FloatFormatOf returns the format of a MiniFloat type, or of the
// components of a MiniComplex type.
func FloatFormatOf(dt DataType) (*FloatFormat, bool) {
	switch dt.Kind {
	case MiniFloat:
		f, ok := floatFormats[dt.Name]
		return f, ok
	case MiniComplex:
		f, ok := floatFormats[complexComponent(dt.Name)]
		return f, ok
	}
	return nil, false
}

// Bytes is the size of one element in memory and in the bytes codec: the
// formats narrower than a byte take one byte each, in its low bits.
func (f *FloatFormat) Bytes() int { return (f.Bits + 7) / 8 }

func (f *FloatFormat) signBit() uint64 {
	if f.Variant == E8M0 {
		return 0
	}
	return 1 << (f.Bits - 1)
}

// Mask is the bits of a memory byte (or two) that hold the value; for the
// 6- and 4-bit formats the upper bits of the byte are ignored on read.
func (f *FloatFormat) Mask() uint64 { return 1<<f.Bits - 1 }

func (f *FloatFormat) expMax() uint64 { return 1<<f.ExpBits - 1 }

// maxCode is the magnitude code of the largest finite value.
func (f *FloatFormat) maxCode() uint64 {
	all := f.expMax()<<f.MantBits | (1<<f.MantBits - 1)
	switch f.Variant {
	case IEEE:
		return (f.expMax()-1)<<f.MantBits | (1<<f.MantBits - 1)
	case E8M0, FN:
		return all - 1
	}
	return all
}

// NaN is the format's canonical NaN (the one "NaN" names in fill values),
// and false for a format without NaN.
func (f *FloatFormat) NaN() (uint64, bool) {
	switch f.Variant {
	case IEEE: // quiet NaN: all-ones exponent, top mantissa bit
		return f.expMax()<<f.MantBits | 1<<(f.MantBits-1), true
	case FN: // all-ones magnitude
		return f.signBit() - 1, true
	case FNUZ:
		return f.signBit(), true
	case E8M0:
		return 0xff, true
	}
	return 0, false
}

// Inf is +infinity, and false for a format without infinities.
func (f *FloatFormat) Inf() (uint64, bool) {
	if f.Variant != IEEE {
		return 0, false
	}
	return f.expMax() << f.MantBits, true
}

// MaxFinite is the largest finite value.
func (f *FloatFormat) MaxFinite() float64 { return f.ToFloat64(f.maxCode()) }

// IsNaN reports whether bits (masked to the format) encode a NaN.
func (f *FloatFormat) IsNaN(bits uint64) bool {
	bits &= f.Mask()
	mag := bits &^ f.signBit()
	switch f.Variant {
	case IEEE:
		return mag>>f.MantBits == f.expMax() && mag&(1<<f.MantBits-1) != 0
	case FN:
		return mag == f.signBit()-1
	case FNUZ:
		return bits == f.signBit()
	case E8M0:
		return bits == 0xff
	}
	return false
}

// ToFloat64 converts a bit pattern to its exact float64 value; bits above
// the format's width are ignored, as the registry's bytes encoding says.
// NaN payloads are not kept.
func (f *FloatFormat) ToFloat64(bits uint64) float64 {
	bits &= f.Mask()
	if f.IsNaN(bits) {
		return math.NaN()
	}
	if f.Variant == E8M0 {
		return math.Ldexp(1, int(bits)-f.Bias)
	}
	mag := bits &^ f.signBit()
	exp := int(mag >> f.MantBits)
	mant := mag & (1<<f.MantBits - 1)
	var v float64
	switch {
	case f.Variant == IEEE && uint64(exp) == f.expMax():
		v = math.Inf(1)
	case exp == 0:
		v = math.Ldexp(float64(mant), 1-f.Bias-f.MantBits)
	default:
		v = math.Ldexp(float64(mant|1<<f.MantBits), exp-f.Bias-f.MantBits)
	}
	if bits&f.signBit() != 0 {
		v = -v
	}
	return v
}

// FromFloat64 converts x to the format the way ml_dtypes' numpy casts do
// (ml_dtypes 0.6.0, checked value by value in the tests): x is first
// rounded to float32, then to the format (see Round); for
// float8_e8m0fnu, ties round away from zero and everything below its
// smallest value becomes that value. This is what a user comparing with
// numpy.astype sees; Round rounds once.
func (f *FloatFormat) FromFloat64(x float64) uint64 {
	return f.Round(float64(float32(x)))
}

// Round rounds x to the nearest value of the format, ties to even, in one
// rounding. A value beyond the largest finite one becomes infinity in
// IEEE formats, NaN of its sign in FN formats, NaN in the FNUZ and E8M0
// formats, and saturates to the largest finite value in the formats
// without NaN; there, NaN becomes zero with the opposite sign (as ml_dtypes
// does). FNUZ formats have no -0: negative zero becomes 0.
func (f *FloatFormat) Round(x float64) uint64 {
	if f.Variant == E8M0 {
		return f.fromFloat64E8M0(x)
	}
	var sign uint64
	if math.Signbit(x) {
		sign = f.signBit()
	}
	switch {
	case math.IsNaN(x):
		if nan, ok := f.NaN(); ok {
			if f.Variant == IEEE || f.Variant == FN {
				return nan | sign
			}
			return nan
		}
		return sign ^ f.signBit() // ml_dtypes: NaN -> zero of the other sign
	case math.IsInf(x, 0):
		return f.overflow(sign)
	}
	code, ok := f.roundMagnitude(math.Abs(x))
	if !ok {
		return f.overflow(sign)
	}
	if code == 0 && f.Variant == FNUZ {
		return 0
	}
	return sign | code
}

// overflow is what a value beyond the largest finite one becomes.
func (f *FloatFormat) overflow(sign uint64) uint64 {
	switch f.Variant {
	case IEEE:
		inf, _ := f.Inf()
		return sign | inf
	case FN: // ml_dtypes: NaN of the value's sign (0xff for -inf)
		nan, _ := f.NaN()
		return sign | nan
	case FNUZ:
		nan, _ := f.NaN()
		return nan
	}
	return sign | f.maxCode()
}

// roundMagnitude rounds a finite a >= 0 to the format's magnitude code,
// ties to even; false when it rounds beyond the largest finite value.
func (f *FloatFormat) roundMagnitude(a float64) (uint64, bool) {
	if a == 0 {
		return 0, true
	}
	_, e := math.Frexp(a)
	exp := max(e-1, 1-f.Bias) // the subnormal quantum below the normals
	// a / 2^(exp-MantBits) is exact in float64 (a power-of-two scaling)
	// unless it underflows far below 0.5, where it rounds to 0 either way.
	n := uint64(math.RoundToEven(math.Ldexp(a, f.MantBits-exp)))
	return f.encode(n, exp)
}

// encode builds the magnitude code of n * 2^(exp-MantBits), where n <
// 2^(MantBits+1) is a rounded significand and exp >= 1-Bias; false when
// the value is beyond the largest finite one.
func (f *FloatFormat) encode(n uint64, exp int) (uint64, bool) {
	if n == 1<<(f.MantBits+1) { // rounding carried into the next binade
		n >>= 1
		exp++
	}
	var code uint64
	if n < 1<<f.MantBits { // subnormal (only at the smallest exponent)
		code = n
	} else {
		biased := exp + f.Bias
		if biased > int(f.expMax()) {
			return 0, false
		}
		code = uint64(biased)<<f.MantBits | (n - 1<<f.MantBits)
	}
	return code, code <= f.maxCode()
}

// fromFloat64E8M0 rounds to a power of two as ml_dtypes does: halfway
// (1.5 * 2^k) rounds up, values below 2^-127 become 2^-127, and NaN, zero,
// negatives and values beyond 2^127 become NaN (0xff).
func (f *FloatFormat) fromFloat64E8M0(x float64) uint64 {
	if !(x > 0) || math.IsInf(x, 1) {
		return 0xff
	}
	fr, e := math.Frexp(x) // x = fr * 2^e, 0.5 <= fr < 1
	exp := e - 1
	if fr >= 0.75 {
		exp++
	}
	biased := max(exp+f.Bias, 0)
	if biased >= 0xff {
		return 0xff
	}
	return uint64(biased)
}

// roundRat rounds a non-negative rational (a decimal fill value, exactly)
// to the format, ties to even; false when it is beyond the largest finite
// value. For E8M0 a value that is not a power of two in range is refused.
func (f *FloatFormat) roundRat(r *big.Rat) (uint64, error) {
	if r.Sign() == 0 {
		// float8_e8m0fnu has no zero; 0 is taken as the all-zero bit
		// pattern (2^-127), the fill value tensorstore (0.1.86) writes as
		// 0.0 by default.
		return 0, nil
	}
	if f.Variant == E8M0 {
		return f.roundRatE8M0(r)
	}
	minNormal := new(big.Rat).SetFloat64(math.Ldexp(1, 1-f.Bias))
	if r.Cmp(minNormal) < 0 {
		q := new(big.Rat).Mul(r, new(big.Rat).SetFloat64(math.Ldexp(1, f.MantBits-(1-f.Bias))))
		code, ok := f.encode(uint64(roundHalfEven(q)), 1-f.Bias)
		return code, rangeErr(ok)
	}
	prec := uint(f.MantBits + 1)
	g := new(big.Float).SetPrec(prec).SetMode(big.ToNearestEven).SetRat(r)
	mant := new(big.Float)
	exp := g.MantExp(mant) - 1 // g = m * 2^exp, 1 <= m < 2
	if exp > 1<<f.ExpBits {
		return 0, errOutOfRange
	}
	n, _ := mant.SetMantExp(mant, int(prec)).Int64()
	code, ok := f.encode(uint64(n), exp)
	return code, rangeErr(ok)
}

// roundRatE8M0 rounds r > 0 to the nearest power of two, halfway (1.5 *
// 2^k) up as ml_dtypes rounds; a value that rounds below 2^-127 or above
// 2^127 is refused (the format has neither zero nor infinity).
func (f *FloatFormat) roundRatE8M0(r *big.Rat) (uint64, error) {
	g, _ := r.Float64()
	_, e := math.Frexp(g)
	k := e - 1
	pow := func(k int) *big.Rat { // 2^k, exactly
		if k >= 0 {
			return new(big.Rat).SetInt(new(big.Int).Lsh(big.NewInt(1), uint(k)))
		}
		return new(big.Rat).SetFrac(big.NewInt(1), new(big.Int).Lsh(big.NewInt(1), uint(-k)))
	}
	if pow(k).Cmp(r) > 0 { // g rounded up to the next power of two
		k--
	}
	if r.Cmp(new(big.Rat).Mul(pow(k), big.NewRat(3, 2))) >= 0 {
		k++
	}
	if k < -f.Bias || k > int(f.expMax())-1-f.Bias {
		return 0, fmt.Errorf("%w: %s holds powers of two from 2^-127 to 2^127", errOutOfRange, f.Name)
	}
	return uint64(k + f.Bias), nil
}

func rangeErr(ok bool) error {
	if ok {
		return nil
	}
	return errOutOfRange
}
