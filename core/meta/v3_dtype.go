package meta

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/zarrgw/zarrgw/core/dtype"
)

// parseV3DataType reads data_type: a core type name (bare or {"name": ...})
// or one of the zarr-python extension types that map onto a numpy-only
// kind: fixed_length_utf32, null_terminated_bytes, raw_bytes,
// numpy.datetime64 and numpy.timedelta64; or a struct (see structType).
func parseV3DataType(raw json.RawMessage) (dtype.DataType, error) {
	return parseV3DataTypeAt(raw, 0)
}

// parseV3DataTypeAt is parseV3DataType for a type depth structs deep.
func parseV3DataTypeAt(raw json.RawMessage, depth int) (dtype.DataType, error) {
	ext, err := parseExtension(raw)
	if err != nil {
		return dtype.DataType{}, err
	}
	if ext.Configuration == nil || string(ext.Configuration) == "{}" {
		if dt, err := dtype.ParseV3(ext.Name); err == nil {
			return dt, nil
		}
	}
	switch ext.Name {
	case "fixed_length_utf32", "null_terminated_bytes", "raw_bytes":
		return lengthType(ext)
	case "numpy.datetime64", "numpy.timedelta64":
		return timeType(ext)
	case "struct", "structured":
		return structType(ext, depth)
	}
	return dtype.DataType{}, fmt.Errorf("unknown data type %q", ext.Name)
}

func configFields(ext Extension) (fields, error) {
	if ext.Configuration == nil {
		return nil, fmt.Errorf("%s: missing configuration", ext.Name)
	}
	return decodeObject(ext.Configuration)
}

// lengthType reads the three fixed-width extension types of zarr-python 3,
// each {"name": N, "configuration": {"length_bytes": L}} with L the bytes
// per element (zarr-python d44f9f9): null_terminated_bytes (numpy S<L>,
// src/zarr/core/dtype/npy/bytes.py:383-390), raw_bytes (numpy V<L>,
// bytes.py:784-786) and fixed_length_utf32 (numpy U<L/4>,
// src/zarr/core/dtype/npy/string.py:249-253). zarr-python silently floors
// a utf32 length that is not a multiple of 4 (string.py:295); the
// registry's schema asks for a multiple of 4, at least 4 (zarr-extensions
// 4da7b37, data-types/fixed_length_utf32/schema.json:11-15), so anything
// else is refused here. The two bytes types have no registry entry
// ("not currently defined in an external specification", bytes.py:81).
func lengthType(ext Extension) (dtype.DataType, error) {
	if ext.Configuration == nil {
		return dtype.DataType{}, fmt.Errorf("%s: missing configuration (want {\"length_bytes\": N})", ext.Name)
	}
	n, err := lengthBytes(ext)
	if err != nil {
		return dtype.DataType{}, fmt.Errorf("%s: configuration: %w", ext.Name, err)
	}
	switch ext.Name {
	case "fixed_length_utf32":
		if n%dtype.CodePointBytes != 0 {
			return dtype.DataType{}, fmt.Errorf("%s: configuration: length_bytes %d is not a multiple of %d (UTF-32 code points)", ext.Name, n, dtype.CodePointBytes)
		}
		return dtype.DataType{Kind: dtype.FixedUnicode, Size: n, Name: "U" + strconv.Itoa(n/dtype.CodePointBytes)}, nil
	case "null_terminated_bytes":
		return dtype.DataType{Kind: dtype.FixedBytes, Size: n, Name: "S" + strconv.Itoa(n)}, nil
	}
	return dtype.DataType{Kind: dtype.Raw, Size: n, Name: "V" + strconv.Itoa(n)}, nil
}

// lengthBytes reads length_bytes, the only key of the configuration: a
// positive integer no larger than the elements zarrgw builds.
func lengthBytes(ext Extension) (int, error) {
	f, err := configFields(ext)
	if err != nil {
		return 0, err
	}
	raw, ok := f.take("length_bytes")
	if !ok {
		return 0, fmt.Errorf("missing length_bytes")
	}
	if len(f) > 0 {
		return 0, fmt.Errorf("unknown key %q (only length_bytes)", f.sortedKeys()[0])
	}
	n, err := parseInt(raw)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("length_bytes: expected a positive integer, got %s", abbreviate(raw))
	}
	if n > dtype.MaxElementSize {
		return 0, fmt.Errorf("length_bytes %d is larger than the %d bytes per element zarrgw supports", n, dtype.MaxElementSize)
	}
	return n, nil
}

func timeType(ext Extension) (dtype.DataType, error) {
	f, err := configFields(ext)
	if err != nil {
		return dtype.DataType{}, err
	}
	unitRaw, _ := f.take("unit")
	unit, err := parseString(unitRaw)
	if err != nil || unit == "" {
		return dtype.DataType{}, fmt.Errorf("%s: unit: expected a string", ext.Name)
	}
	if raw, ok := f.take("scale_factor"); ok {
		if n, err := parseInt(raw); err != nil || n != 1 {
			return dtype.DataType{}, fmt.Errorf("%s: scale_factor %s is not supported (only 1)", ext.Name, abbreviate(raw))
		}
	}
	if len(f) > 0 {
		return dtype.DataType{}, fmt.Errorf("%s: unknown configuration key %q", ext.Name, f.sortedKeys()[0])
	}
	// numpy's unit-less M8/m8 is the "generic" unit.
	suffix := "[" + unit + "]"
	if unit == "generic" {
		suffix = ""
	}
	spec := "<M8" + suffix
	if ext.Name == "numpy.timedelta64" {
		spec = "<m8" + suffix
	}
	dt, _, err := dtype.ParseV2(spec)
	return dt, err
}

// marshalV3DataType writes dt as zarr-python 3 does: core types as bare
// names, numpy-only kinds as their extension objects (see lengthType for
// where zarr-python writes each; numpy void as raw_bytes, the core r<N>
// as itself).
func marshalV3DataType(dt dtype.DataType) ([]byte, error) {
	switch dt.Kind {
	case dtype.String:
		return quote("string"), nil
	case dtype.Bytes:
		if dt.Name == "bytes" || dt.Name == "variable_length_bytes" {
			return quote(dt.Name), nil
		}
		return quote("bytes"), nil
	case dtype.Raw:
		if dt.NumpyVoid() {
			return lengthObject("raw_bytes", dt.Size), nil
		}
		return quote("r" + strconv.Itoa(8*dt.Size)), nil
	case dtype.FixedUnicode:
		return lengthObject("fixed_length_utf32", dt.Size), nil
	case dtype.FixedBytes:
		return lengthObject("null_terminated_bytes", dt.Size), nil
	case dtype.Datetime, dtype.Timedelta:
		return timeObject(dt), nil
	case dtype.Struct:
		return structObject(dt)
	}
	name := coreName(dt)
	if _, err := dtype.ParseV3(name); err != nil {
		return nil, fmt.Errorf("data type %q has no v3 name", dt.Name)
	}
	return quote(name), nil
}

func coreName(dt dtype.DataType) string {
	switch dt.Kind {
	case dtype.Bool:
		return "bool"
	case dtype.Int:
		return "int" + strconv.Itoa(8*dt.Size)
	case dtype.Uint:
		return "uint" + strconv.Itoa(8*dt.Size)
	case dtype.Float:
		return "float" + strconv.Itoa(8*dt.Size)
	case dtype.Complex:
		if named, err := dtype.ParseV3(dt.Name); err == nil && named.Equal(dt) {
			return dt.Name // complex_float32, the registry's name, stays as written
		}
		return "complex" + strconv.Itoa(8*dt.Size)
	}
	return dt.Name
}

func lengthObject(name string, n int) []byte {
	return []byte(`{"name":"` + name + `","configuration":{"length_bytes":` + strconv.Itoa(n) + `}}`)
}

func timeObject(dt dtype.DataType) []byte {
	name := "numpy.datetime64"
	if dt.Kind == dtype.Timedelta {
		name = "numpy.timedelta64"
	}
	unit := dt.Unit
	if unit == "" {
		unit = "generic"
	}
	o := newObject()
	o.add("unit", quote(unit))
	o.add("scale_factor", []byte("1"))
	cfg := o.bytes()
	return []byte(`{"name":"` + name + `","configuration":` + string(cfg) + `}`)
}
