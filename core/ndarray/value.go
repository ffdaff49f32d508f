package ndarray

import (
	"encoding/binary"
	"math"
	"strings"
	"unicode/utf8"

	"github.com/zarrgw/zarrgw/core/dtype"
)

// At returns element i (flat C-order index) as a Go value: bool, int64,
// uint64, float64 (float16 and float32 widened exactly), complex128,
// string (string types; fixed-width ones without trailing NULs) or []byte
// (raw). Datetime and timedelta values are int64.
func (a *Array) At(i int) any {
	dt := a.DType
	if dt.Variable() {
		return a.Strings[i]
	}
	b := a.Data[i*dt.Size : (i+1)*dt.Size]
	switch dt.Kind {
	case dtype.Bool:
		return b[0] != 0
	case dtype.Int, dtype.Datetime, dtype.Timedelta:
		return intLE(b)
	case dtype.Uint:
		return uintLE(b)
	case dtype.Float:
		return floatLE(b)
	case dtype.Complex:
		h := len(b) / 2
		return complex(floatLE(b[:h]), floatLE(b[h:]))
	case dtype.FixedBytes:
		return strings.TrimRight(string(b), "\x00")
	case dtype.FixedUnicode:
		return utf32ToString(b)
	}
	return append([]byte(nil), b...)
}

func intLE(b []byte) int64 {
	switch len(b) {
	case 1:
		return int64(int8(b[0]))
	case 2:
		return int64(int16(binary.LittleEndian.Uint16(b)))
	case 4:
		return int64(int32(binary.LittleEndian.Uint32(b)))
	}
	return int64(binary.LittleEndian.Uint64(b))
}

func uintLE(b []byte) uint64 {
	switch len(b) {
	case 1:
		return uint64(b[0])
	case 2:
		return uint64(binary.LittleEndian.Uint16(b))
	case 4:
		return uint64(binary.LittleEndian.Uint32(b))
	}
	return binary.LittleEndian.Uint64(b)
}

func floatLE(b []byte) float64 {
	switch len(b) {
	case 2:
		return dtype.F16ToFloat64(binary.LittleEndian.Uint16(b))
	case 4:
		return float64(math.Float32frombits(binary.LittleEndian.Uint32(b)))
	}
	return math.Float64frombits(binary.LittleEndian.Uint64(b))
}

// utf32ToString decodes NUL-padded UTF-32LE; invalid code points become U+FFFD.
func utf32ToString(b []byte) string {
	var sb strings.Builder
	for i := 0; i+dtype.CodePointBytes <= len(b); i += dtype.CodePointBytes {
		r := rune(binary.LittleEndian.Uint32(b[i:]))
		if !utf8.ValidRune(r) {
			r = utf8.RuneError
		}
		sb.WriteRune(r)
	}
	return strings.TrimRight(sb.String(), "\x00")
}
