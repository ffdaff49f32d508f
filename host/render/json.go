// Package render turns arrays and hierarchies into what people and other
// programs read: the JSON and .npy forms of `zarrgw cat` and the tree of
// `zarrgw inspect`.
package render

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"

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

// JSON writes {"zarr_format", "shape", "data_type", "data"} with every
// element in C order: NaN and infinities as the strings "NaN", "Infinity",
// "-Infinity", 64-bit integers exact, complex numbers as [re, im], strings
// as JSON strings.
func JSON(w io.Writer, m *meta.ArrayMeta, a *ndarray.Array) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	format := int(m.Format)
	if m.Format == meta.V3Draft {
		format = 3
	}
	shape, _ := json.Marshal(nonNil(m.Shape))
	name, _ := json.Marshal(DataTypeName(m))
	fmt.Fprintf(bw, `{"zarr_format": %d, "shape": %s, "data_type": %s, "data": [`, format, shape, name)
	var buf []byte
	for i := 0; i < a.Len(); i++ {
		if i > 0 {
			bw.WriteString(", ")
		}
		buf = appendValue(buf[:0], a.At(i))
		bw.Write(buf)
	}
	bw.WriteString("]}\n")
	return bw.Flush()
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
		s, _ := json.Marshal(x)
		return append(b, s...)
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
