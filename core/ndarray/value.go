package ndarray

import (
	"encoding/binary"
	"math"
	"strings"
	"unicode/utf8"

	"github.com/zarrgw/zarrgw/core/dtype"
)

// At returns element i (flat C-order index) as a Go value: bool, int64
// (also int2/int4, datetime and timedelta), uint64 (also uint2/uint4),
// float64 (float16, float32 and the registry's float formats widened
// exactly), complex128, string (string types; fixed-width ones without
// trailing NULs), []byte (raw) or Record (struct).
func (a *Array) At(i int) any {
	dt := a.DType
	if dt.Variable() {
		return a.Strings[i]
	}
	return valueOf(dt, a.Data[i*dt.Size:(i+1)*dt.Size])
}

// Record is a struct element: the values of its fields in field order.
type Record []FieldValue

// FieldValue is one field of a Record: its value as At returns elements
// of the field's type, or a []any of them for a numpy subarray field.
type FieldValue struct {
	Name  string
	Value any
}

func recordOf(dt dtype.DataType, b []byte) Record {
	fields := dt.Fields()
	r := make(Record, len(fields))
	for i, f := range fields {
		r[i].Name = f.Name
		if f.Shape == nil {
			r[i].Value = valueOf(f.Type, b[f.Offset:f.Offset+f.Type.Size])
			continue
		}
		items := make([]any, f.Count())
		for k := range items {
			at := f.Offset + k*f.Type.Size
			items[k] = valueOf(f.Type, b[at:at+f.Type.Size])
		}
		r[i].Value = items
	}
	return r
}

// valueOf is the value of the element of type dt held in b.
func valueOf(dt dtype.DataType, b []byte) any {
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
	case dtype.SubByteInt:
		return dtype.SubByteValue(dt, b[0])
	case dtype.SubByteUint:
		return uint64(dtype.SubByteValue(dt, b[0]))
	case dtype.MiniFloat, dtype.MiniComplex:
		return miniFloatAt(dt, b)
	case dtype.FixedBytes:
		return strings.TrimRight(string(b), "\x00")
	case dtype.FixedUnicode:
		return utf32ToString(b)
	case dtype.Struct:
		return recordOf(dt, b)
	}
	return append([]byte(nil), b...)
}

// miniFloatAt widens an element of one of the registry's float formats
// (float64) or of its complex form (complex128).
func miniFloatAt(dt dtype.DataType, b []byte) any {
	f, ok := dtype.FloatFormatOf(dt)
	if !ok {
		return append([]byte(nil), b...)
	}
	if dt.Kind == dtype.MiniComplex {
		h := len(b) / 2
		return complex(f.ToFloat64(uintLE(b[:h])), f.ToFloat64(uintLE(b[h:])))
	}
	return f.ToFloat64(uintLE(b))
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
