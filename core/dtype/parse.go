package dtype

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

var v3Core = map[string]DataType{
	"bool":       {Kind: Bool, Size: 1, Name: "bool"},
	"int8":       {Kind: Int, Size: 1, Name: "int8"},
	"int16":      {Kind: Int, Size: 2, Name: "int16"},
	"int32":      {Kind: Int, Size: 4, Name: "int32"},
	"int64":      {Kind: Int, Size: 8, Name: "int64"},
	"uint8":      {Kind: Uint, Size: 1, Name: "uint8"},
	"uint16":     {Kind: Uint, Size: 2, Name: "uint16"},
	"uint32":     {Kind: Uint, Size: 4, Name: "uint32"},
	"uint64":     {Kind: Uint, Size: 8, Name: "uint64"},
	"float16":    {Kind: Float, Size: 2, Name: "float16"},
	"float32":    {Kind: Float, Size: 4, Name: "float32"},
	"float64":    {Kind: Float, Size: 8, Name: "float64"},
	"complex64":  {Kind: Complex, Size: 8, Name: "complex64"},
	"complex128": {Kind: Complex, Size: 16, Name: "complex128"},
	"string":     {Kind: String, Name: "string"},
	"bytes":      {Kind: Bytes, Name: "bytes"},
	// older spelling of the variable-length bytes extension type
	"variable_length_bytes": {Kind: Bytes, Name: "variable_length_bytes"},
}

// Named returns the v3 type with the given name, e.g. "float32".
// It panics on an unknown name; use ParseV3 for input.
func Named(name string) DataType {
	d, err := ParseV3(name)
	if err != nil {
		panic(err)
	}
	return d
}

// ParseV3 parses a v3 data type name: a core type, r<N>, string or bytes,
// or one of the registry's number types (int2, bfloat16, float8_e4m3,
// complex_float16, ...).
func ParseV3(name string) (DataType, error) {
	if d, ok := v3Core[name]; ok {
		return d, nil
	}
	if d, ok := registeredNumber(name); ok {
		return d, nil
	}
	if strings.HasPrefix(name, "r") {
		bits, err := strconv.Atoi(name[1:])
		if err == nil && bits > 0 && bits%8 == 0 {
			return DataType{Kind: Raw, Size: bits / 8, Name: name}, nil
		}
	}
	return DataType{}, fmt.Errorf("unknown data type %q", name)
}

// ParseV2 parses a numpy type string as found in a v2 .zarray ("<i4",
// "|b1", ">U13", "|S7", "|O", "<M8[ns]") or in the v3 draft layout ("i1",
// "bool", "<f4"). It returns the type and the byte order the string names.
func ParseV2(typestr string) (DataType, Endian, error) {
	s := typestr
	end := NoEndian
	if s == "bool" {
		return v3Core["bool"], NoEndian, nil
	}
	if len(s) > 0 {
		switch s[0] {
		case '<':
			end, s = Little, s[1:]
		case '>':
			end, s = Big, s[1:]
		case '|', '=':
			s = s[1:]
		}
	}
	if len(s) < 1 {
		return DataType{}, NoEndian, fmt.Errorf("invalid v2 data type %q", typestr)
	}
	kind, rest := s[0], s[1:]
	if kind == 'O' && rest == "" {
		return DataType{Kind: String, Name: "O"}, NoEndian, nil
	}
	unit := ""
	if kind == 'M' || kind == 'm' {
		if i := strings.IndexByte(rest, '['); i >= 0 && strings.HasSuffix(rest, "]") {
			unit = rest[i+1 : len(rest)-1]
			rest = rest[:i]
		}
	}
	n, err := strconv.Atoi(rest)
	if err != nil || n <= 0 {
		return DataType{}, NoEndian, fmt.Errorf("invalid v2 data type %q", typestr)
	}
	d := v2DataType(kind, n, unit)
	if d.Kind == Invalid {
		return DataType{}, NoEndian, fmt.Errorf("unsupported v2 data type %q", typestr)
	}
	if d.SwapUnit() == 1 {
		end = NoEndian
	}
	return d, end, nil
}

// v2DataType is the data type that a v2 type string's kind letter and
// byte size name (unit for datetime64 and timedelta64); Invalid when they
// name none.
func v2DataType(kind byte, n int, unit string) DataType {
	switch kind {
	case 'b':
		if n == 1 {
			return v3Core["bool"]
		}
	case 'i':
		return v3Core[fmt.Sprintf("int%d", n*8)]
	case 'u':
		return v3Core[fmt.Sprintf("uint%d", n*8)]
	case 'f':
		return v3Core[fmt.Sprintf("float%d", n*8)]
	case 'c':
		return v3Core[fmt.Sprintf("complex%d", n*8)]
	case 'S':
		return DataType{Kind: FixedBytes, Size: n, Name: "S" + strconv.Itoa(n)}
	case 'U':
		return DataType{Kind: FixedUnicode, Size: CodePointBytes * n, Name: "U" + strconv.Itoa(n)}
	case 'V':
		return DataType{Kind: Raw, Size: n, Name: "V" + strconv.Itoa(n)}
	case 'M', 'm':
		if n == 8 {
			k, name := Datetime, "M8"
			if kind == 'm' {
				k, name = Timedelta, "m8"
			}
			if unit != "" {
				name += "[" + unit + "]"
			}
			return DataType{Kind: k, Size: 8, Name: name, Unit: unit}
		}
	}
	return DataType{}
}

// V2String formats the type as a numpy type string with the given byte order.
func (d DataType) V2String(e Endian) string {
	order := "|"
	if d.HasEndian() {
		order = "<"
		if e == Big {
			order = ">"
		}
	}
	switch d.Kind {
	case Bool:
		return "|b1"
	case Int:
		return fmt.Sprintf("%si%d", order, d.Size)
	case Uint:
		return fmt.Sprintf("%su%d", order, d.Size)
	case Float:
		return fmt.Sprintf("%sf%d", order, d.Size)
	case Complex:
		return fmt.Sprintf("%sc%d", order, d.Size)
	case FixedBytes:
		return fmt.Sprintf("|S%d", d.Size)
	case FixedUnicode:
		return fmt.Sprintf("%sU%d", order, d.Size/CodePointBytes)
	case Raw:
		return fmt.Sprintf("|V%d", d.Size)
	case String, Bytes:
		return "|O"
	case Datetime, Timedelta:
		return order + d.Name
	case Struct:
		return d.v2Struct(e)
	}
	return "?"
}

// subByteBits are the widths of the registry's sub-byte integer types.
var subByteBits = map[string]int{"int2": 2, "int4": 4, "uint2": 2, "uint4": 4}

// registeredNumber is the number type the registry names name
// (zarr-extensions 4da7b37, data-types/): a sub-byte integer, a float
// format, or a complex form (complex_float32 and complex_float64 are the
// core complex64 and complex128 under their registry names); and
// tensorstore's float8_e4m3fn, the one float format outside the registry.
func registeredNumber(name string) (DataType, bool) {
	if bits, ok := subByteBits[name]; ok && bits > 0 {
		k := SubByteInt
		if strings.HasPrefix(name, "u") {
			k = SubByteUint
		}
		return DataType{Kind: k, Size: 1, Name: name}, true
	}
	if f, ok := floatFormats[name]; ok && name != "float16" {
		return DataType{Kind: MiniFloat, Size: f.Bytes(), Name: name}, true
	}
	comp := complexComponent(name)
	if comp == "" {
		return DataType{}, false
	}
	switch comp {
	case "float32":
		return DataType{Kind: Complex, Size: 8, Name: name}, true
	case "float64":
		return DataType{Kind: Complex, Size: 16, Name: name}, true
	}
	if f, ok := floatFormats[comp]; ok && !f.Unregistered {
		return DataType{Kind: MiniComplex, Size: 2 * f.Bytes(), Name: name}, true
	}
	return DataType{}, false
}

// NarrowNumbers are the names of the registry's narrow number types:
// int2, int4, uint2, uint4, the float formats and every complex_* form
// (complex_float32 and complex_float64 included), and tensorstore's
// float8_e4m3fn (which has no complex form), sorted.
func NarrowNumbers() []string {
	names := []string{"complex_float16", "complex_float32", "complex_float64"}
	for n := range subByteBits {
		names = append(names, n)
	}
	for _, n := range FloatFormats() {
		names = append(names, n)
		if !floatFormats[n].Unregistered {
			names = append(names, "complex_"+n)
		}
	}
	sort.Strings(names)
	return names
}

// complexComponent is the component type of a "complex_<float>" name, or "".
func complexComponent(name string) string {
	comp, ok := strings.CutPrefix(name, "complex_")
	if !ok {
		return ""
	}
	return comp
}

// SubByteBits is the width in bits of a SubByteInt or SubByteUint type,
// 0 for other types.
func SubByteBits(dt DataType) int {
	if dt.Kind != SubByteInt && dt.Kind != SubByteUint {
		return 0
	}
	return subByteBits[dt.Name]
}
