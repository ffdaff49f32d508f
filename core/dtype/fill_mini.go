package dtype

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
)

// Fill values of the registry's narrow number types. The registry gives
// them the core encodings (zarr-extensions 4da7b37, data-types/*/README.md):
// integers for int2..uint4; for the float formats a number (rounded to
// the format, ties to even), "NaN", "Infinity", "-Infinity" where the
// format has them, or the bit pattern as "0x" and two hex digits per byte.
// A number beyond the largest finite value is refused rather than turned
// into infinity, NaN or the largest value, as for float32.

// parseSubByteInt reads an integer fill value of an n-bit type into its
// memory form: the low n bits, upper bits zero.
func parseSubByteInt(dt DataType, v jsonValue) ([]byte, error) {
	bits := SubByteBits(dt)
	signed := dt.Kind == SubByteInt
	var lo, hi int64 = 0, 1<<bits - 1
	if signed {
		lo, hi = -1<<(bits-1), 1<<(bits-1)-1
	}
	if v.kind == jsonString {
		if b, ok := parseBitString(v.str, 1); ok && b <= uint64(1<<bits-1) {
			return []byte{byte(b)}, nil
		}
		return nil, fmt.Errorf("bit pattern %q is not \"0x\" and 2 hex digits up to %#x", v.str, 1<<bits-1)
	}
	u, err := parseIntBits(v, 8, true)
	if err != nil {
		return nil, err
	}
	if n := int64(u); n < lo || n > hi {
		return nil, fmt.Errorf("%w: %s holds %d to %d", errOutOfRange, dt.Name, lo, hi)
	}
	return []byte{byte(u) & byte(1<<bits-1)}, nil
}

// parseMiniFloatBits reads one float fill encoding into the format's bits.
func parseMiniFloatBits(f *FloatFormat, v jsonValue) (uint64, error) {
	size := f.Bytes()
	switch v.kind {
	case jsonNumber:
		return parseMiniNumber(f, v.text)
	case jsonString:
		return parseMiniString(f, v.str, size)
	}
	return 0, fmt.Errorf("expected a number or a string (\"NaN\", \"Infinity\", \"-Infinity\", \"0x...\"), got %s", v.text)
}

func parseMiniString(f *FloatFormat, s string, size int) (uint64, error) {
	switch s {
	case "NaN":
		if nan, ok := f.NaN(); ok {
			return nan, nil
		}
		return 0, fmt.Errorf("%s has no NaN", f.Name)
	case "Infinity", "+Infinity", "-Infinity":
		inf, ok := f.Inf()
		if !ok {
			return 0, fmt.Errorf("%s has no infinity", f.Name)
		}
		if s == "-Infinity" {
			inf |= f.signBit()
		}
		return inf, nil
	}
	bits, ok := parseBitString(s, size)
	if !ok {
		return 0, fmt.Errorf("invalid float fill value %q", s)
	}
	if bits&^f.Mask() != 0 {
		return 0, fmt.Errorf("bit pattern %q is wider than the %d bits of %s", s, f.Bits, f.Name)
	}
	return bits, nil
}

// parseMiniNumber rounds the decimal tok to the format straight from the
// decimal (one rounding, ties to even); float16 fill values go this way too.
func parseMiniNumber(f *FloatFormat, tok string) (uint64, error) {
	g, err := strconv.ParseFloat(tok, 64)
	if err != nil && !isRangeErr(err) {
		return 0, err
	}
	var sign uint64
	switch {
	case !math.Signbit(g) || (g == 0 && f.signBit() == 0):
	case f.signBit() == 0:
		return 0, fmt.Errorf("%s has no negative values", f.Name)
	case f.Variant != FNUZ: // FNUZ has no -0; a negative value keeps its sign below
		sign = f.signBit()
	}
	a := math.Abs(g)
	if a > 2*f.MaxFinite() { // even with float64 rounding slack this overflows
		return 0, errOutOfRange
	}
	// Far below half the smallest value: zero (and big.Rat is spared
	// literals such as 1e-999999999).
	if a < f.ToFloat64(1)/4 && !isZeroNumber(jsonValue{kind: jsonNumber, text: tok}) {
		if f.Variant == E8M0 {
			return 0, fmt.Errorf("%w: %s holds powers of two from 2^-127 to 2^127", errOutOfRange, f.Name)
		}
		if f.Variant == FNUZ {
			return 0, nil
		}
		return sign, nil
	}
	r, ok := new(big.Rat).SetString(tok)
	if !ok {
		return 0, fmt.Errorf("invalid number %q", tok)
	}
	code, err := f.roundRat(r.Abs(r))
	if err != nil {
		return 0, err
	}
	if code != 0 && math.Signbit(g) {
		sign = f.signBit()
	}
	return sign | code, nil
}

// formatMiniFloat writes bits as a fill value: "NaN" for the canonical
// NaN (any NaN in v2), a hex bit pattern for another NaN, "Infinity" or
// "-Infinity", and otherwise the shortest decimal that rounds back to the
// same bits, written as Python writes floats.
func formatMiniFloat(f *FloatFormat, bits uint64) string {
	bits &= f.Mask()
	size := f.Bytes()
	x := f.ToFloat64(bits)
	switch {
	case math.IsNaN(x):
		if nan, _ := f.NaN(); bits == nan {
			return `"NaN"`
		}
		return fmt.Sprintf(`"0x%0*x"`, 2*size, bits)
	case math.IsInf(x, 1):
		return `"Infinity"`
	case math.IsInf(x, -1):
		return `"-Infinity"`
	}
	for prec := 0; prec < 17; prec++ {
		s := strconv.FormatFloat(x, 'e', prec, 64)
		if back, err := parseMiniNumber(f, s); err == nil && back == bits {
			g, _ := strconv.ParseFloat(s, 64)
			return pyFloat(g, 64)
		}
	}
	return pyFloat(x, 64) // the exact value; every value of these formats is a float64
}
