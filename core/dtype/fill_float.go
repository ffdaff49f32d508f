package dtype

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

var errOutOfRange = errors.New("out of range")

func isRangeErr(err error) bool {
	var ne *strconv.NumError
	return errors.As(err, &ne) && errors.Is(ne.Err, strconv.ErrRange)
}

// Bit patterns of the special values, by element size in bytes.
var (
	canonicalNaN = map[int]uint64{2: 0x7e00, 4: 0x7fc00000, 8: 0x7ff8000000000000}
	positiveInf  = map[int]uint64{2: 0x7c00, 4: 0x7f800000, 8: 0x7ff0000000000000}
	signBit      = map[int]uint64{2: 0x8000, 4: 0x80000000, 8: 0x8000000000000000}
)

// parseFloatBits decodes one float fill encoding (a JSON number, "NaN",
// "Infinity", "+Infinity", "-Infinity", or a "0x"/"0b" bit string) into the
// bit pattern of an IEEE float of size bytes.
func parseFloatBits(v jsonValue, size int) (uint64, error) {
	switch v.kind {
	case jsonNumber:
		return parseFloatNumber(v.text, size)
	case jsonString:
		return parseFloatString(v.str, size)
	}
	return 0, fmt.Errorf("expected a number or one of \"NaN\", \"Infinity\", \"-Infinity\", \"0x...\", got %s", v.text)
}

func parseFloatNumber(tok string, size int) (uint64, error) {
	switch size {
	case 2:
		h, err := parseF16(tok)
		return uint64(h), err
	case 4:
		f, err := strconv.ParseFloat(tok, 32)
		if err != nil {
			return 0, numErr(err)
		}
		return uint64(math.Float32bits(float32(f))), nil
	case 8:
		f, err := strconv.ParseFloat(tok, 64)
		if err != nil {
			return 0, numErr(err)
		}
		return math.Float64bits(f), nil
	}
	return 0, fmt.Errorf("unsupported float size %d", size)
}

// numErr keeps range errors checkable and drops strconv's noisy wrapping.
func numErr(err error) error {
	if isRangeErr(err) {
		return errOutOfRange
	}
	return err
}

func parseFloatString(s string, size int) (uint64, error) {
	switch s {
	case "NaN":
		return canonicalNaN[size], nil
	case "Infinity", "+Infinity":
		return positiveInf[size], nil
	case "-Infinity":
		return positiveInf[size] | signBit[size], nil
	}
	if bits, ok := parseBitString(s, size); ok {
		return bits, nil
	}
	return 0, fmt.Errorf("invalid float fill value %q", s)
}

// parseBitString reads "0x" followed by exactly 2*size hex digits, or "0b"
// followed by exactly 8*size binary digits (the draft v3 form), most
// significant digit first.
func parseBitString(s string, size int) (uint64, bool) {
	var digits, base int
	switch {
	case strings.HasPrefix(s, "0x"):
		digits, base = 2*size, 16
	case strings.HasPrefix(s, "0b"):
		digits, base = 8*size, 2
	default:
		return 0, false
	}
	if len(s)-2 != digits || size > 8 {
		return 0, false
	}
	bits, err := strconv.ParseUint(s[2:], base, 64)
	return bits, err == nil
}

// formatFloatBits writes a float fill value: a number, "NaN" for the
// canonical NaN, "Infinity"/"-Infinity", and for any other NaN a hex bit
// pattern in v3 (v2 readers know only "NaN", so the payload is dropped).
func formatFloatBits(bits uint64, size int, v2 bool) string {
	exp, mant := floatParts(bits, size)
	if exp { // all-ones exponent: Inf or NaN
		switch {
		case mant == 0 && bits&signBit[size] == 0:
			return `"Infinity"`
		case mant == 0:
			return `"-Infinity"`
		case bits == canonicalNaN[size] || v2:
			return `"NaN"`
		}
		return fmt.Sprintf(`"0x%0*x"`, 2*size, bits)
	}
	switch size {
	case 2:
		return formatF16(uint16(bits))
	case 4:
		return pyFloat(float64(math.Float32frombits(uint32(bits))), 32)
	}
	return pyFloat(math.Float64frombits(bits), 64)
}

// floatParts reports whether the exponent is all ones and returns the
// mantissa bits.
func floatParts(bits uint64, size int) (bool, uint64) {
	switch size {
	case 2:
		return bits&0x7c00 == 0x7c00, bits & 0x3ff
	case 4:
		return bits&0x7f800000 == 0x7f800000, bits & 0x7fffff
	}
	return bits&0x7ff0000000000000 == 0x7ff0000000000000, bits & 0xfffffffffffff
}

// pyFloat formats a finite float the way Python's repr does (shortest
// round-trip digits, exponent form below 1e-4 and from 1e16 on, ".0" on
// integral values), which is what zarr-python writes and always valid JSON.
// bitSize 32 picks the shortest digits that identify the float32.
func pyFloat(f float64, bitSize int) string {
	e := strconv.FormatFloat(f, 'e', -1, bitSize)
	exp, _ := strconv.Atoi(e[strings.IndexByte(e, 'e')+1:])
	if exp < -4 || exp >= 16 {
		return e
	}
	s := strconv.FormatFloat(f, 'f', -1, bitSize)
	if !strings.ContainsRune(s, '.') {
		s += ".0"
	}
	return s
}

func putUint(b []byte, v uint64) {
	var tmp [8]byte
	binary.LittleEndian.PutUint64(tmp[:], v)
	copy(b, tmp[:len(b)])
}

func getUint(b []byte) uint64 {
	var tmp [8]byte
	copy(tmp[:], b)
	return binary.LittleEndian.Uint64(tmp[:])
}
