package dtype

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
)

// natBits is NaT ("not a time") of datetime64 and timedelta64: numpy's
// int64 minimum, as bits.
const natBits uint64 = 1 << 63

// Fill values in memory are one element in memory form: little-endian
// bytes of the element size for fixed-size types (UTF-32LE, zero padded,
// for fixed-width unicode; zero-padded bytes for fixed-width byte strings),
// and the UTF-8 / raw bytes of the value for variable-length types. A nil
// fill value means the metadata said null: "no fill value", which readers
// treat as zeros / the empty string.
//
// Decisions where the formats leave room:
//   - Zarr v2 object arrays (string, bytes) often carry fill_value 0 or
//     null, which zarr-python 2 ignores; both parse to nil.
//   - Zarr v2 fixed-width strings (S, U) and raw (V) types accept the
//     number 0 as "all zero bytes" (written by old zarr-python versions).
//   - Integral floats (0.0, 1e3) are accepted for integer types; a number
//     beyond the type's range is an error, also for floats (1e39 as
//     float32), rather than silently becoming infinity.
//   - Floats are written like Python's repr: integral values keep ".0"
//     (0.0, 1.0), float32 uses the shortest digits that identify the
//     float32 (0.1, not 0.10000000149011612). Both forms parse.

var errNotIntegral = errors.New("not an integer")

// MaxElementSize bounds the element size of fixed-width types (U, S, V,
// r<N>) that fill values are built for; metadata naming a larger type
// (|S999999999999) is rejected instead of allocating it.
const MaxElementSize = 1 << 24

// ParseFill decodes the JSON fill_value raw of an array of type dt into
// memory form. v2 selects the Zarr v2 encodings (and the legacy leniency
// above); the v3 ones are accepted in both modes where they do not clash.
// JSON null gives nil.
func ParseFill(dt DataType, raw json.RawMessage, v2 bool) ([]byte, error) {
	if err := checkSize(dt); err != nil {
		return nil, fmt.Errorf("fill_value: %w", err)
	}
	v, err := classify(raw)
	if err != nil {
		return nil, fmt.Errorf("fill_value: %w", err)
	}
	if v.kind == jsonNull {
		return nil, nil
	}
	b, err := parseFill(dt, v, v2)
	if err != nil {
		return nil, fmt.Errorf("fill_value %s for data type %s: %w", abbreviate([]byte(v.text)), dt.Name, err)
	}
	return b, nil
}

// checkSize rejects types whose size cannot hold their kind, so that a
// hand-built DataType cannot make the codecs below misbehave.
func checkSize(dt DataType) error {
	ok := true
	switch dt.Kind {
	case Bool:
		ok = dt.Size == 1
	case Int, Uint:
		ok = dt.Size == 1 || dt.Size == 2 || dt.Size == 4 || dt.Size == 8
	case Float:
		ok = dt.Size == 2 || dt.Size == 4 || dt.Size == 8
	case Complex:
		ok = dt.Size == 8 || dt.Size == 16
	case Datetime, Timedelta:
		ok = dt.Size == 8
	case SubByteInt, SubByteUint:
		ok = dt.Size == 1 && SubByteBits(dt) > 0
	case MiniFloat, MiniComplex:
		f, known := FloatFormatOf(dt)
		if !known {
			return fmt.Errorf("unknown float format %q", dt.Name)
		}
		want := f.Bytes()
		if dt.Kind == MiniComplex {
			want *= 2
		}
		ok = dt.Size == want
	case Raw, FixedBytes:
		ok = dt.Size > 0 && dt.Size <= MaxElementSize
	case FixedUnicode:
		ok = dt.Size > 0 && dt.Size%4 == 0 && dt.Size <= MaxElementSize
	case String, Bytes:
	case Struct:
		ok = dt.layout != nil && dt.Size > 0
	default:
		return fmt.Errorf("invalid data type %q", dt.Name)
	}
	if !ok {
		return fmt.Errorf("data type %q has invalid size %d", dt.Name, dt.Size)
	}
	return nil
}

func parseFill(dt DataType, v jsonValue, v2 bool) ([]byte, error) {
	switch dt.Kind {
	case Bool:
		return parseBool(v)
	case Int, Uint:
		return fixed(dt.Size)(parseIntBits(v, dt.Size, dt.Kind == Int))
	case Datetime, Timedelta:
		if v.kind == jsonString && v.str == "NaT" {
			return fixed(8)(natBits, nil)
		}
		return fixed(8)(parseIntBits(v, 8, true))
	case Float:
		return fixed(dt.Size)(parseFloatBits(v, dt.Size))
	case Complex:
		return parseComplex(v, dt.Size)
	case SubByteInt, SubByteUint:
		return parseSubByteInt(dt, v)
	case MiniFloat:
		f, _ := FloatFormatOf(dt)
		return fixed(dt.Size)(parseMiniFloatBits(f, v))
	case MiniComplex:
		f, _ := FloatFormatOf(dt)
		return parseComplexWith(v, dt.Size, func(e jsonValue) (uint64, error) { return parseMiniFloatBits(f, e) })
	case Raw, FixedBytes:
		return parseFixedBytes(v, dt.Size, v2 && dt.Kind == FixedBytes)
	case FixedUnicode:
		return parseUnicode(v, dt.Size)
	case String:
		return parseString(v, v2)
	case Bytes:
		return parseVarBytes(v, v2)
	case Struct:
		return parseStructFill(dt, v, v2)
	}
	return nil, fmt.Errorf("invalid data type %q", dt.Name)
}

// fixed turns a bit pattern into size little-endian bytes.
func fixed(size int) func(uint64, error) ([]byte, error) {
	return func(bits uint64, err error) ([]byte, error) {
		if err != nil {
			return nil, err
		}
		b := make([]byte, size)
		putUint(b, bits)
		return b, nil
	}
}

func parseBool(v jsonValue) ([]byte, error) {
	switch v.kind {
	case jsonBool:
		if v.truth {
			return []byte{1}, nil
		}
		return []byte{0}, nil
	case jsonNumber: // 0 / 1, as zarr-python 2 accepted
		n, err := parseIntToken(v.text, 1, false)
		if err == nil && n <= 1 {
			return []byte{byte(n)}, nil
		}
	}
	return nil, errWant("true or false")
}

func parseComplex(v jsonValue, size int) ([]byte, error) {
	return parseComplexWith(v, size, func(e jsonValue) (uint64, error) { return parseFloatBits(e, size/2) })
}

// parseComplexWith reads [re, im] into two components of size/2 bytes,
// each read by component.
func parseComplexWith(v jsonValue, size int, component func(jsonValue) (uint64, error)) ([]byte, error) {
	if v.kind != jsonArray || len(v.elems) != 2 {
		return nil, errWant("a two-element array [re, im]")
	}
	half := size / 2
	b := make([]byte, size)
	for i, e := range v.elems {
		ev, err := classify(e)
		if err != nil {
			return nil, err
		}
		bits, err := component(ev)
		if err != nil {
			return nil, fmt.Errorf("element %d: %w", i, err)
		}
		putUint(b[i*half:(i+1)*half], bits)
	}
	return b, nil
}

func errWant(want string) error {
	return fmt.Errorf("expected %s", want)
}

// DefaultFill is the fill value used when none is given: zero bytes for
// fixed-size types (0, false, 0.0, [0, 0], empty strings) and the empty
// string for variable-length types.
func DefaultFill(dt DataType) []byte {
	if dt.Variable() || dt.Size <= 0 || dt.Size > MaxElementSize {
		return []byte{}
	}
	return make([]byte, dt.Size)
}

// FormatFill is the inverse of ParseFill: it writes fill (memory form) as
// the JSON fill_value zarr-python writes for dt. nil writes null.
func FormatFill(dt DataType, fill []byte, v2 bool) (json.RawMessage, error) {
	if fill == nil {
		return json.RawMessage("null"), nil
	}
	if err := checkSize(dt); err != nil {
		return nil, fmt.Errorf("fill_value: %w", err)
	}
	if !dt.Variable() && len(fill) != dt.Size {
		return nil, fmt.Errorf("fill_value: %d bytes for data type %s of size %d", len(fill), dt.Name, dt.Size)
	}
	s, err := formatFill(dt, fill, v2)
	if err != nil {
		return nil, fmt.Errorf("fill_value for data type %s: %w", dt.Name, err)
	}
	return json.RawMessage(s), nil
}

func formatFill(dt DataType, fill []byte, v2 bool) (string, error) {
	switch dt.Kind {
	case Bool:
		return formatBool(fill[0])
	case Int, Uint:
		return formatInt(fill, dt.Kind == Int), nil
	case Datetime, Timedelta:
		if !v2 && getUint(fill) == natBits {
			return `"NaT"`, nil // v2 writes NaT as the plain int64, like numpy
		}
		return formatInt(fill, true), nil
	case Float:
		return formatFloatBits(getUint(fill), dt.Size, v2), nil
	case Complex:
		h := dt.Size / 2
		return "[" + formatFloatBits(getUint(fill[:h]), h, v2) + ", " +
			formatFloatBits(getUint(fill[h:]), h, v2) + "]", nil
	case SubByteInt, SubByteUint:
		return strconv.FormatInt(SubByteValue(dt, fill[0]), 10), nil
	case MiniFloat:
		f, _ := FloatFormatOf(dt)
		return formatMiniFloat(f, getUint(fill)), nil
	case MiniComplex:
		f, _ := FloatFormatOf(dt)
		h := dt.Size / 2
		return "[" + formatMiniFloat(f, getUint(fill[:h])) + ", " +
			formatMiniFloat(f, getUint(fill[h:])) + "]", nil
	case Raw:
		// zarr-python 3 writes raw_bytes as base64 of every byte
		// (zarr-python d44f9f9, src/zarr/core/dtype/npy/bytes.py:878-898,
		// RawBytes.to_json_scalar); the core r<N> is one integer per byte.
		if v2 || dt.NumpyVoid() {
			return base64String(fill), nil
		}
		return intArray(fill), nil
	case FixedBytes:
		// numpy's bytes_ scalar drops trailing NULs before zarr-python
		// encodes it in base64, in v2 and in v3 (null_terminated_bytes:
		// zarr-python d44f9f9, src/zarr/core/dtype/npy/bytes.py:481-501,
		// NullTerminatedBytes.to_json_scalar).
		return base64String(bytes.TrimRight(fill, "\x00")), nil
	case FixedUnicode:
		return formatUnicode(fill)
	case String:
		return quoteJSON(fill)
	case Bytes:
		// The registry allows an array of integers or base64; base64 is
		// what zarr-python 3 writes and the only form 3.1.6 reads.
		return base64String(fill), nil
	case Struct:
		return formatStructFill(dt, fill, v2)
	}
	return "", fmt.Errorf("invalid data type %q", dt.Name)
}

func formatBool(b byte) (string, error) {
	switch b {
	case 0:
		return "false", nil
	case 1:
		return "true", nil
	}
	return "", fmt.Errorf("invalid bool byte %#x", b)
}

// Float32Fill and Float64Fill are conveniences for callers that build fill
// values from Go numbers.
func Float32Fill(f float32) []byte { return fixedMust(4, uint64(math.Float32bits(f))) }

// Float64Fill: see Float32Fill.
func Float64Fill(f float64) []byte { return fixedMust(8, math.Float64bits(f)) }

func fixedMust(size int, bits uint64) []byte {
	b := make([]byte, size)
	putUint(b, bits)
	return b
}
