package interop

import (
	"fmt"
	"math"
	"unicode/utf8"

	"github.com/zarrgw/zarrgw/core/dtype"
)

// formula describes the elements a foreign client writes; js/formula.mjs
// and py/formula.py compute the same values (see their comments):
//
//	u(i, bits) = (i * 0x9E3779B97F4A7C15 + 3) mod 2^bits
//	int        = offset + u(i, bits) as a two's complement bits-bit integer
//	uint       = u(i, bits)
//	float      = offset + (u(i, bits) - 2^(bits-1)) / div
//	bool       = u(i, 8) mod 3 == 0
//	string     = "v" + i + suffix[i mod 4]
//	unicode    = string cut to width code points; bytes = "b" + i cut to width
//
// and, for the matrix (py/matrix_values.py):
//
//	complex    = float(i) + i*(-float(i+1))
//	datetime   = int(i), NaT (the most negative int64) where i mod 7 == 5
//	raw        = width bytes, byte k being u(i*width + k, 8)
//	vbytes     = "b" + i followed by the first i mod 3 bytes of "\x00\xff"
//	struct     = each field by its own formula, named
type formula struct {
	Kind   string    `json:"kind"`
	Bits   int       `json:"bits,omitempty"`
	Div    float64   `json:"div,omitempty"`
	Offset float64   `json:"offset,omitempty"`
	Width  int       `json:"width,omitempty"`
	Name   string    `json:"name,omitempty"`   // a struct field's name
	Fields []formula `json:"fields,omitempty"` // a struct's fields
}

var suffixes = []string{"", "é", "漢字", "🙂x"}

func formulaU(i, bits int) uint64 {
	v := uint64(i)*0x9E3779B97F4A7C15 + 3
	if bits < 64 {
		v &= 1<<bits - 1
	}
	return v
}

func formulaString(i int) string { return fmt.Sprintf("v%d%s", i, suffixes[i%4]) }

// value is element i as ndarray.At returns it for the array's type.
func (f formula) value(i int) any {
	switch f.Kind {
	case "int":
		v := formulaU(i, f.Bits)
		s := int64(v)
		if f.Bits < 64 && v >= 1<<(f.Bits-1) {
			s = int64(v) - 1<<f.Bits
		}
		return s + int64(f.Offset)
	case "uint":
		return formulaU(i, f.Bits)
	case "float":
		return f.Offset + (float64(formulaU(i, f.Bits))-math.Ldexp(1, f.Bits-1))/f.Div
	case "bool":
		return formulaU(i, 8)%3 == 0
	case "string":
		return formulaString(i)
	case "unicode":
		s := formulaString(i)
		for n, k := 0, 0; k < len(s); n++ {
			if n == f.Width {
				return s[:k]
			}
			_, size := utf8.DecodeRuneInString(s[k:])
			k += size
		}
		return s
	case "bytes":
		s := fmt.Sprintf("b%d", i)
		return s[:min(len(s), f.Width)]
	case "complex":
		g := f
		g.Kind = "float"
		return complex(g.value(i).(float64), -g.value(i+1).(float64))
	case "datetime", "timedelta":
		if i%7 == 5 {
			return int64(math.MinInt64)
		}
		g := f
		g.Kind = "int"
		return g.value(i)
	case "raw":
		b := make([]byte, f.Width)
		for k := range b {
			b[k] = byte(formulaU(i*f.Width+k, 8))
		}
		return b
	case "vbytes":
		return fmt.Sprintf("b%d", i) + "\x00\xff"[:i%3]
	case "struct":
		fields := make(map[string]any, len(f.Fields))
		for _, fd := range f.Fields {
			fields[fd.Name] = fd.value(i)
		}
		return fields
	}
	panic("unknown formula " + f.Kind)
}

// formulaFor is the natural formula of a data type: integers over their
// whole range, floats on a grid the type holds exactly.
func formulaFor(dt dtype.DataType) formula {
	switch dt.Kind {
	case dtype.Int:
		return formula{Kind: "int", Bits: 8 * dt.Size}
	case dtype.Uint:
		return formula{Kind: "uint", Bits: 8 * dt.Size}
	case dtype.Float:
		if dt.Size == 2 {
			return formula{Kind: "float", Bits: 10, Div: 8}
		}
		return formula{Kind: "float", Bits: 20, Div: 64}
	case dtype.Bool:
		return formula{Kind: "bool"}
	case dtype.String:
		return formula{Kind: "string"}
	case dtype.FixedBytes:
		return formula{Kind: "bytes", Width: dt.Size}
	case dtype.FixedUnicode:
		return formula{Kind: "unicode", Width: dt.Size / 4}
	}
	panic("no formula for " + dt.Name)
}
