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
// numpy.datetime64 and numpy.timedelta64.
func parseV3DataType(raw json.RawMessage) (dtype.DataType, error) {
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
	}
	return dtype.DataType{}, fmt.Errorf("unknown data type %q", ext.Name)
}

func configFields(ext Extension) (fields, error) {
	if ext.Configuration == nil {
		return nil, fmt.Errorf("%s: missing configuration", ext.Name)
	}
	return decodeObject(ext.Configuration)
}

func lengthType(ext Extension) (dtype.DataType, error) {
	f, err := configFields(ext)
	if err != nil {
		return dtype.DataType{}, err
	}
	raw, _ := f.take("length_bytes")
	n, err := parseInt(raw)
	if err != nil || n <= 0 {
		return dtype.DataType{}, fmt.Errorf("%s: length_bytes: expected a positive integer, got %s", ext.Name, abbreviate(raw))
	}
	if len(f) > 0 {
		return dtype.DataType{}, fmt.Errorf("%s: unknown configuration key %q", ext.Name, f.sortedKeys()[0])
	}
	switch ext.Name {
	case "fixed_length_utf32":
		if n%4 != 0 {
			return dtype.DataType{}, fmt.Errorf("%s: length_bytes %d is not a multiple of 4", ext.Name, n)
		}
		return dtype.DataType{Kind: dtype.FixedUnicode, Size: n, Name: "U" + strconv.Itoa(n/4)}, nil
	case "null_terminated_bytes":
		return dtype.DataType{Kind: dtype.FixedBytes, Size: n, Name: "S" + strconv.Itoa(n)}, nil
	}
	return dtype.DataType{Kind: dtype.Raw, Size: n, Name: "r" + strconv.Itoa(8*n)}, nil
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
// names, numpy-only kinds as their extension objects.
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
		return quote("r" + strconv.Itoa(8*dt.Size)), nil
	case dtype.FixedUnicode:
		return lengthObject("fixed_length_utf32", dt.Size), nil
	case dtype.FixedBytes:
		return lengthObject("null_terminated_bytes", dt.Size), nil
	case dtype.Datetime, dtype.Timedelta:
		return timeObject(dt), nil
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
