// Package dtype describes Zarr element types: the v3 core types, the v3
// string/bytes extension types and the numpy type strings of Zarr v2.
//
// In memory every fixed-size element is held in little-endian byte order
// (UTF-32LE for fixed-width unicode); byte order on disk is a property of the
// codec chain (the v3 "bytes" codec), never of the in-memory array.
// Variable-length elements (strings, bytes) are held as Go strings.
package dtype

import (
	"fmt"
	"strings"
)

// Kind is the family of an element type.
type Kind uint8

const (
	Invalid Kind = iota
	Bool
	Int
	Uint
	Float
	Complex
	Raw          // v3 r<N>, v2 |V<n> (v3 raw_bytes): opaque bytes
	String       // variable-length UTF-8 (v3 "string", v2 |O with an object codec)
	Bytes        // variable-length bytes (v3 "bytes"/"variable_length_bytes", v2 |O with vlen-bytes)
	FixedBytes   // v2 |S<n>: NUL-padded bytes
	FixedUnicode // v2 <U<n> / >U<n>: NUL-padded UTF-32, n code points
	Datetime     // numpy datetime64 (int64 storage)
	Timedelta    // numpy timedelta64 (int64 storage)
	Struct       // named fields, packed (zarr-extensions struct, v2 structured dtypes); see Fields
	// The registry's narrow number types (zarr-extensions data-types/),
	// held as ml_dtypes and zarr-python hold them: one element per byte
	// (two for bfloat16), the value in the low bits, upper bits zero.
	// Their own kinds, not Int/Float of size 1 or 2, so that code written
	// for int8 or float16 refuses them instead of misreading them.
	SubByteInt  // int2, int4: two's complement in the low 2 or 4 bits
	SubByteUint // uint2, uint4
	MiniFloat   // bfloat16, float8_*, float6_*, float4_*: see FloatFormat
	MiniComplex // complex_<format>: two MiniFloat-format components (real, imaginary)
)

// Valid reports whether k is one of the kinds above (a Kind that came
// over a wire may be anything).
func (k Kind) Valid() bool { return k != Invalid && k.String() != "invalid" }

// CodePointBytes is the size of one code point of a FixedUnicode element:
// numpy's U<n> holds n UTF-32 code units.
const CodePointBytes = 4

func (k Kind) String() string {
	switch k {
	case Bool:
		return "bool"
	case Int:
		return "int"
	case Uint:
		return "uint"
	case Float:
		return "float"
	case Complex:
		return "complex"
	case Raw:
		return "raw"
	case String:
		return "string"
	case Bytes:
		return "bytes"
	case FixedBytes:
		return "fixed-bytes"
	case FixedUnicode:
		return "fixed-unicode"
	case Datetime:
		return "datetime"
	case Timedelta:
		return "timedelta"
	case Struct:
		return "struct"
	case SubByteInt:
		return "sub-byte-int"
	case SubByteUint:
		return "sub-byte-uint"
	case MiniFloat:
		return "mini-float"
	case MiniComplex:
		return "mini-complex"
	}
	return "invalid"
}

// Endian is a byte order as written in v2 type strings and the v3 bytes codec.
type Endian uint8

const (
	NoEndian Endian = iota // not applicable (1-byte or byte-string types)
	Little
	Big
)

func (e Endian) String() string {
	switch e {
	case Little:
		return "little"
	case Big:
		return "big"
	}
	return "none"
}

// DataType is one element type. The zero value is invalid.
type DataType struct {
	Kind Kind
	// Size is the number of bytes per element; 0 for variable-length kinds.
	Size int
	// Name is the type's name as written in metadata: the v3 name ("int16",
	// "string", "r24") or, for types that exist only in v2, the v2 type
	// string without byte order ("U7", "S7", "V3", "O", "M8[ns]").
	// For Raw it also tells the two v3 forms apart: "r24" is the core
	// type, "V3" numpy's void, which zarr-python 3 writes as raw_bytes.
	Name string
	// Unit is the datetime/timedelta unit ("ns", "s", ...), empty otherwise.
	Unit string

	layout *structLayout // the fields of a Struct; nil otherwise
}

// NumpyVoid reports whether a Raw type is numpy's void (v2 |V<n>, v3
// raw_bytes) rather than the v3 core r<N>: the two hold the same bytes but
// are written differently (base64 fill vs one integer per byte).
func (d DataType) NumpyVoid() bool {
	return d.Kind == Raw && strings.HasPrefix(d.Name, "V")
}

// Variable reports whether elements are variable-length (held as strings).
func (d DataType) Variable() bool { return d.Kind == String || d.Kind == Bytes }

// VariableMemBytes is what an element of a variable-length type is
// assumed to take in memory: a string header and its bytes.
const VariableMemBytes = 64

// MemBytes is the memory an element takes in a decoded array: its size,
// or VariableMemBytes for a variable-length type. Sizes of reads and of
// chunks are reckoned with it.
func (d DataType) MemBytes() int64 {
	if d.Variable() {
		return VariableMemBytes
	}
	return int64(d.Size)
}

// SwapUnit is the width in bytes of the groups whose byte order a "bytes"
// codec reverses: the element size for numbers, half of it for complex
// numbers, 4 for UTF-32 and 1 for byte-like types (nothing to swap) and
// for structs, whose fields SwapRuns lists.
func (d DataType) SwapUnit() int {
	switch d.Kind {
	case Int, Uint, Float, Datetime, Timedelta, MiniFloat:
		return d.Size
	case Complex, MiniComplex:
		return d.Size / 2
	case FixedUnicode:
		return CodePointBytes
	}
	return 1
}

// HasEndian reports whether the type's encoding depends on byte order
// (for a struct: whether a field's does; SwapRuns says where).
func (d DataType) HasEndian() bool {
	if d.layout != nil {
		return d.layout.hasEndian
	}
	return d.SwapUnit() > 1
}

func (d DataType) String() string { return d.Name }

// Equal compares two types by meaning (not by how they were spelled).
// Formats of one kind and size (float8_e4m3, float8_e5m2) differ by name.
func (d DataType) Equal(o DataType) bool {
	sameFormat := d.Name == o.Name || !d.NarrowNumber()
	return d.Kind == o.Kind && d.Size == o.Size && d.Unit == o.Unit && sameFormat && structEqual(d.layout, o.layout)
}

// NarrowNumber reports whether the type is one of the registry's narrow
// number types (int2..uint4, bfloat16, float8/6/4, their complex forms),
// whose name, not size, tells its encoding apart from others of its kind.
func (d DataType) NarrowNumber() bool {
	switch d.Kind {
	case SubByteInt, SubByteUint, MiniFloat, MiniComplex:
		return true
	}
	return false
}

func (d DataType) validate() error {
	if d.Kind == Invalid {
		return fmt.Errorf("invalid data type")
	}
	return nil
}
