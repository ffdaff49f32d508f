package meta

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/zarrgw/zarrgw/core/dtype"
)

// ParseV2Array parses a .zarray document and, when not nil, its .zattrs.
// It fills the normalised fields (Format V2, DataType from dtype, FillValue
// with the v2 encodings, ChunkKey "v2" with dimension_separator or ".",
// and the derived v3 codec chain, see deriveV2Codecs) and keeps the v2
// fields in a.V2. Keys the v2 spec does not define are ignored, as the
// spec says, but kept in a.V2.Extra for rewriting. zarr_format, shape,
// chunks and dtype are required; order, filters, compressor and fill_value
// default to "C", null, null and null.
func ParseV2Array(zarray, zattrs []byte) (*ArrayMeta, error) {
	// Parts kept as raw JSON (unknown keys, codec configurations,
	// attributes) are held in the escaped form v2 documents are written
	// in, so that a rewrite reads back exactly what was read.
	zarray, zattrs = asciiJSON(zarray), asciiJSON(zattrs)
	a, err := parseV2Array(zarray)
	if err != nil {
		return nil, fmt.Errorf(".zarray: %w", err)
	}
	if a.Attributes, err = parseV2Attrs(zattrs); err != nil {
		return nil, err
	}
	return a, nil
}

func parseV2Attrs(zattrs []byte) (json.RawMessage, error) {
	if zattrs == nil {
		return json.RawMessage("{}"), nil
	}
	attrs, err := parseObject(lenient(zattrs))
	if err != nil {
		return nil, fmt.Errorf(".zattrs: %w", err)
	}
	return attrs, nil
}

func parseV2Array(doc []byte) (*ArrayMeta, error) {
	f, err := decodeObject(lenient(doc))
	if err != nil {
		return nil, err
	}
	if err := checkZarrFormat2(f); err != nil {
		return nil, err
	}
	a := &ArrayMeta{Format: V2, V2: &V2Array{}}
	steps := []func(fields, *ArrayMeta) error{
		v2Shape, v2DType, v2Order, v2Filters, v2Compressor, v2Separator,
	}
	for _, step := range steps {
		if err := step(f, a); err != nil {
			return nil, err
		}
	}
	if err := v2Derive(f, a); err != nil {
		return nil, err
	}
	for _, k := range f.sortedKeys() {
		if a.V2.Extra == nil {
			a.V2.Extra = map[string]json.RawMessage{}
		}
		a.V2.Extra[k] = compact(f[k])
	}
	return a, nil
}

func checkZarrFormat2(f fields) error {
	raw, ok := f.take("zarr_format")
	if !ok {
		return errors.New("missing zarr_format")
	}
	if n, err := parseInt(raw); err != nil || n != 2 {
		return fmt.Errorf("zarr_format: unsupported value %s (want 2)", abbreviate(raw))
	}
	return nil
}

func v2Shape(f fields, a *ArrayMeta) error {
	raw, err := required(f, "shape")
	if err != nil {
		return err
	}
	if a.Shape, err = parseInts(raw, 0); err != nil {
		return fmt.Errorf("shape: %w", err)
	}
	if raw, err = required(f, "chunks"); err != nil {
		return err
	}
	if a.ChunkShape, err = parseInts(raw, 1); err != nil {
		return fmt.Errorf("chunks: %w", err)
	}
	if len(a.ChunkShape) != len(a.Shape) {
		return fmt.Errorf("chunks has %d dimensions, shape has %d", len(a.ChunkShape), len(a.Shape))
	}
	return nil
}

func v2DType(f fields, a *ArrayMeta) error {
	raw, err := required(f, "dtype")
	if err != nil {
		return err
	}
	if t := bytes.TrimSpace(raw); len(t) > 0 && t[0] == '[' {
		a.V2.DType = string(compact(t)) // a structured dtype, kept as its JSON
	} else if a.V2.DType, err = parseString(raw); err != nil {
		return fmt.Errorf("dtype: %w", err)
	}
	if a.DataType, _, err = parseV2DType(a.V2.DType); err != nil {
		return fmt.Errorf("dtype: %w", err)
	}
	return nil
}

// parseV2DType reads a v2 dtype as V2Array.DType holds it: a numpy type
// string, or a structured dtype's JSON list.
func parseV2DType(s string) (dtype.DataType, dtype.Endian, error) {
	if strings.HasPrefix(s, "[") {
		return dtype.ParseV2Struct(json.RawMessage(s))
	}
	return dtype.ParseV2(s)
}

func v2Order(f fields, a *ArrayMeta) error {
	a.V2.Order = "C"
	raw, ok := f.takeNonNull("order")
	if !ok {
		return nil
	}
	s, err := parseString(raw)
	if err != nil || (s != "C" && s != "F") {
		return fmt.Errorf("order: expected \"C\" or \"F\", got %s", abbreviate(raw))
	}
	a.V2.Order = s
	return nil
}

func v2Filters(f fields, a *ArrayMeta) error {
	raw, ok := f.takeNonNull("filters")
	if !ok {
		return nil
	}
	elems, err := parseArray(raw)
	if err != nil {
		return fmt.Errorf("filters: %w", err)
	}
	for i, e := range elems {
		c, err := parseV2Codec(e)
		if err != nil {
			return fmt.Errorf("filters: entry %d: %w", i, err)
		}
		a.V2.Filters = append(a.V2.Filters, c)
	}
	return nil
}

func v2Compressor(f fields, a *ArrayMeta) error {
	raw, ok := f.takeNonNull("compressor")
	if !ok {
		return nil
	}
	c, err := parseV2Codec(raw)
	if err != nil {
		return fmt.Errorf("compressor: %w", err)
	}
	a.V2.Compressor = &c
	return nil
}

func v2Separator(f fields, a *ArrayMeta) error {
	a.ChunkKey = ChunkKeyEncoding{Name: "v2", Separator: "."}
	raw, ok := f.takeNonNull("dimension_separator")
	if !ok {
		return nil
	}
	s, err := parseString(raw)
	if err != nil || (s != "." && s != "/") {
		return fmt.Errorf("dimension_separator: expected \".\" or \"/\", got %s", abbreviate(raw))
	}
	a.V2.DimensionSeparator = s
	a.ChunkKey.Separator = s
	return nil
}

// v2Derive builds the codec chain and then reads fill_value, whose
// encoding depends on the data type the object codec settles.
func v2Derive(f fields, a *ArrayMeta) error {
	_, end, _ := parseV2DType(a.V2.DType)
	codecs, dt, err := deriveV2Codecs(a.V2, a.DataType, end, len(a.Shape), nil)
	if err != nil {
		return err
	}
	a.Codecs, a.DataType = codecs, dt
	raw, ok := f.take("fill_value")
	if !ok {
		raw = json.RawMessage("null") // absent means no fill value
	}
	a.V2.FillJSON = compact(raw)
	a.FillValue, err = parseV2Fill(a.DataType, raw, a.V2.DType)
	return err
}

// ParseV2Group parses a .zgroup document and, when not nil, its .zattrs.
// Keys other than zarr_format are ignored (zarr-python 3 sometimes adds
// consolidated_metadata there).
func ParseV2Group(zgroup, zattrs []byte) (*GroupMeta, error) {
	zattrs = asciiJSON(zattrs) // as in ParseV2Array
	f, err := decodeObject(lenient(zgroup))
	if err == nil {
		err = checkZarrFormat2(f)
	}
	if err != nil {
		return nil, fmt.Errorf(".zgroup: %w", err)
	}
	attrs, err := parseV2Attrs(zattrs)
	if err != nil {
		return nil, err
	}
	return &GroupMeta{Format: V2, Attributes: attrs}, nil
}
