package meta

import (
	"encoding/json"
	"fmt"

	"github.com/zarrgw/zarrgw/core/dtype"
)

// structType reads the struct data type (zarr-extensions 4da7b37,
// data-types/struct): {"fields": [{"name": N, "data_type": T}, ...]},
// fields in byte order, T any fixed-size v3 type (a struct too). The
// legacy name "structured", which zarr-python 3.1 writes, is read as
// the same type, its fields also in the tuple form [N, T]
// (data-types/structured); both forms are accepted under both names, as
// zarr-python does (zarr-python d44f9f9,
// src/zarr/core/dtype/npy/structured.py, Struct._from_json_v3). The
// bounds are dtype.MaxStructFields and dtype.MaxStructDepth.
func structType(ext Extension, depth int) (dtype.DataType, error) {
	if depth >= dtype.MaxStructDepth {
		return dtype.DataType{}, fmt.Errorf("%s: nested more than %d deep", ext.Name, dtype.MaxStructDepth)
	}
	cfg, err := configFields(ext)
	if err != nil {
		return dtype.DataType{}, err
	}
	raw, ok := cfg.take("fields")
	if !ok {
		return dtype.DataType{}, fmt.Errorf("%s: configuration: missing fields", ext.Name)
	}
	if len(cfg) > 0 {
		return dtype.DataType{}, fmt.Errorf("%s: configuration: unknown key %q (only fields)", ext.Name, cfg.sortedKeys()[0])
	}
	elems, err := parseArray(raw)
	if err != nil {
		return dtype.DataType{}, fmt.Errorf("%s: fields: %w", ext.Name, err)
	}
	if len(elems) > dtype.MaxStructFields {
		return dtype.DataType{}, fmt.Errorf("%s: %d fields, more than the %d zarrgw reads", ext.Name, len(elems), dtype.MaxStructFields)
	}
	fields := make([]dtype.Field, len(elems))
	for i, e := range elems {
		if fields[i], err = structField(e, depth); err != nil {
			return dtype.DataType{}, fmt.Errorf("%s: fields[%d]: %w", ext.Name, i, err)
		}
	}
	return dtype.NewStruct(fields)
}

// structField reads {"name": N, "data_type": T} or the legacy [N, T].
func structField(raw json.RawMessage, depth int) (dtype.Field, error) {
	var f dtype.Field
	var nameRaw, typeRaw json.RawMessage
	if obj, err := decodeObject(raw); err == nil {
		var ok bool
		if nameRaw, ok = obj.take("name"); !ok {
			return f, fmt.Errorf("missing name")
		}
		if typeRaw, ok = obj.take("data_type"); !ok {
			return f, fmt.Errorf("missing data_type")
		}
		if len(obj) > 0 {
			return f, fmt.Errorf("unknown key %q (only name and data_type)", obj.sortedKeys()[0])
		}
	} else {
		pair, err := parseArray(raw)
		if err != nil || len(pair) != 2 {
			return f, fmt.Errorf("expected {\"name\": ..., \"data_type\": ...} or [name, data_type], got %s", abbreviate(raw))
		}
		nameRaw, typeRaw = pair[0], pair[1]
	}
	name, err := parseString(nameRaw)
	if err != nil {
		return f, fmt.Errorf("name: %w", err)
	}
	t, err := parseV3DataTypeAt(typeRaw, depth+1)
	if err != nil {
		return f, fmt.Errorf("%q: data_type: %w", name, err)
	}
	return dtype.Field{Name: name, Type: t}, nil
}

// structObject writes a struct type as the struct spec has it (never the
// legacy "structured", which the spec forbids writing).
func structObject(dt dtype.DataType) ([]byte, error) {
	b := []byte(`{"name":"struct","configuration":{"fields":[`)
	for i, f := range dt.Fields() {
		if f.Shape != nil {
			return nil, fmt.Errorf("struct field %q is a numpy subarray (shape %v), which the Zarr v3 struct type cannot hold", f.Name, f.Shape)
		}
		t, err := marshalV3DataType(f.Type)
		if err != nil {
			return nil, fmt.Errorf("struct field %q: %w", f.Name, err)
		}
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"name":`...)
		b = append(b, quote(f.Name)...)
		b = append(b, `,"data_type":`...)
		b = append(b, t...)
		b = append(b, '}')
	}
	return append(b, "]}}"...), nil
}

// MarshalV3DataType writes a data type as zarr.json's data_type holds it
// (a struct as its object, for the documents that show the type).
func MarshalV3DataType(dt dtype.DataType) (json.RawMessage, error) {
	return marshalV3DataType(dt)
}

// ParseV3DataType reads a data_type as zarr.json holds it: a name or an
// object such as a struct's (for command lines that take one).
func ParseV3DataType(raw json.RawMessage) (dtype.DataType, error) {
	return parseV3DataType(raw)
}
