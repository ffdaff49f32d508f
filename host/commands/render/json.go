// Package render turns arrays and hierarchies into what people and other
// programs read: the JSON, .npy and raw forms of `zarrgw cat` and the tree
// of `zarrgw inspect`.
package render

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"

	"github.com/zarrgw/zarrgw/core/dtype"
	"github.com/zarrgw/zarrgw/core/meta"
	"github.com/zarrgw/zarrgw/core/ndarray"
)

// DataTypeName is the data type as the array's metadata names it.
func DataTypeName(m *meta.ArrayMeta) string {
	if m.V2 != nil && m.V2.DType != "" {
		return m.V2.DType
	}
	return m.DataType.Name
}

// structDataType is a struct array's data_type as its metadata writes
// it, as JSON (v2's descr list, v3's struct object); nil for other types.
func structDataType(m *meta.ArrayMeta) []byte {
	if m.DataType.Kind != dtype.Struct {
		return nil
	}
	if m.V2 != nil && m.V2.DType != "" {
		return []byte(m.V2.DType)
	}
	if b, err := meta.MarshalV3DataType(m.DataType); err == nil {
		return b
	}
	return nil
}

// writeJSONHead writes {"zarr_format", "shape", "data_type" and the start
// of "data". The JSON document holds every element in C order: NaN and
// infinities as the strings "NaN", "Infinity", "-Infinity", 64-bit
// integers exact, complex numbers as [re, im], strings as JSON strings,
// datetimes and timedeltas as integers in their unit (numpy's int64 view)
// with NaT as the string "NaT". The registry's narrow floats (bfloat16,
// float8, ...) are written as their exact values, like float32.
func writeJSONHead(bw *bufio.Writer, m *meta.ArrayMeta) {
	format := int(m.Format)
	if m.Format == meta.V3Draft {
		format = 3
	}
	shape := marshal(nonNil(m.Shape))
	name := marshal(DataTypeName(m))
	if raw := structDataType(m); raw != nil {
		name = raw
	}
	fmt.Fprintf(bw, `{"zarr_format": %d, "shape": %s, "data_type": %s, "data": [`, format, shape, name)
}

// writeJSONElements writes the elements of a, each after a separator
// unless first; scratch is a buffer it may reuse, returned for the next
// call.
func writeJSONElements(bw *bufio.Writer, a *ndarray.Array, first bool, scratch []byte) []byte {
	isTime := a.DType.Kind == dtype.Datetime || a.DType.Kind == dtype.Timedelta
	for i := 0; i < a.Len(); i++ {
		if i > 0 || !first {
			bw.WriteString(", ")
		}
		v := a.At(i)
		if isTime && v == any(int64(math.MinInt64)) {
			v = "NaT" // numpy's NaT is the int64 minimum
		}
		scratch = appendValue(scratch[:0], v)
		bw.Write(scratch)
	}
	return scratch
}

// marshal encodes v as JSON without escaping '<', '>' and '&' (data type
// names such as "<u2" must read as they are written).
func marshal(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v) // values here are ints, strings and slices of them
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

func nonNil(s []int) []int {
	if s == nil {
		return []int{}
	}
	return s
}

func appendValue(b []byte, v any) []byte {
	switch x := v.(type) {
	case bool:
		return strconv.AppendBool(b, x)
	case int64:
		return strconv.AppendInt(b, x, 10)
	case uint64:
		return strconv.AppendUint(b, x, 10)
	case float64:
		return appendFloat(b, x)
	case complex128:
		b = append(b, '[')
		b = appendFloat(b, real(x))
		b = append(b, ", "...)
		b = appendFloat(b, imag(x))
		return append(b, ']')
	case string:
		return append(b, marshal(x)...)
	case ndarray.Record:
		b = append(b, '{')
		for i, f := range x {
			if i > 0 {
				b = append(b, ", "...)
			}
			b = append(b, marshal(f.Name)...)
			b = append(b, ": "...)
			b = appendValue(b, f.Value)
		}
		return append(b, '}')
	case []any: // a struct's subarray field
		b = append(b, '[')
		for i, item := range x {
			if i > 0 {
				b = append(b, ", "...)
			}
			b = appendValue(b, item)
		}
		return append(b, ']')
	case []byte:
		b = append(b, '[')
		for i, c := range x {
			if i > 0 {
				b = append(b, ", "...)
			}
			b = strconv.AppendUint(b, uint64(c), 10)
		}
		return append(b, ']')
	}
	return append(b, "null"...)
}

// appendFloat writes the exact value (float32 elements arrive widened, so
// their exact double value is printed, as numpy's tolist() does).
func appendFloat(b []byte, f float64) []byte {
	switch {
	case math.IsNaN(f):
		return append(b, `"NaN"`...)
	case math.IsInf(f, 1):
		return append(b, `"Infinity"`...)
	case math.IsInf(f, -1):
		return append(b, `"-Infinity"`...)
	case f == math.Trunc(f) && math.Abs(f) < 1e16:
		b = strconv.AppendFloat(b, f, 'f', -1, 64)
		return append(b, ".0"...)
	}
	return strconv.AppendFloat(b, f, 'g', -1, 64)
}
