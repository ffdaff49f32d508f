package meta

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/zarrgw/zarrgw/core/dtype"
)

// MarshalV2 writes the array as a .zarray and a .zattrs document the way
// zarr-python 2 does (keys sorted, indent 4, non-ASCII characters escaped:
// zarr-python 2 reads metadata as ASCII). The v2 fields come from
// V2FromCodecs, so arrays created in another format (or with a.V2 nil) are
// written from their codec chain. zattrs is always returned, "{}" when
// there are no attributes, so that rewriting a node never leaves stale
// attributes behind. Dimension names are written as xarray's
// _ARRAY_DIMENSIONS attribute (the first; an attribute of that name that
// says otherwise is an error); storage transformers and v3 Extra fields
// have no v2 form (an array with storage transformers is an error). The
// chunk key encoding must be "v2". ToV2 converts an array of another
// format into one MarshalV2 writes.
func (a *ArrayMeta) MarshalV2() (zarray, zattrs []byte, err error) {
	doc, err := a.zarrayCompact()
	if err != nil {
		return nil, nil, err
	}
	if zarray, err = indent(asciiJSON(doc), "    "); err != nil {
		return nil, nil, err
	}
	attrs, err := a.v2Attributes()
	if err != nil {
		return nil, nil, err
	}
	if zattrs, err = indent(asciiJSON(attrs), "    "); err != nil {
		return nil, nil, err
	}
	return zarray, zattrs, nil
}

// v2Attributes is the array's .zattrs, compact: its attributes ("{}" when
// none) with its dimension names as _ARRAY_DIMENSIONS.
func (a *ArrayMeta) v2Attributes() (json.RawMessage, error) {
	attrs, err := attributesOrEmpty(a.Attributes)
	if err != nil {
		return nil, err
	}
	return withXarrayDimensions(attrs, a.DimensionNames)
}

func attrsV2(attrs json.RawMessage) ([]byte, error) {
	b, err := attributesOrEmpty(attrs)
	if err != nil {
		return nil, err
	}
	return indent(asciiJSON(b), "    ")
}

func (a *ArrayMeta) zarrayCompact() ([]byte, error) {
	if err := a.Validate(); err != nil {
		return nil, err
	}
	if a.ChunkKey.Name != "v2" && a.ChunkKey.Name != "" {
		return nil, fmt.Errorf("chunk key encoding %q cannot be expressed in Zarr v2", a.ChunkKey.Name)
	}
	if len(a.StorageTransformers) > 0 {
		return nil, errors.New("storage transformers cannot be expressed in Zarr v2")
	}
	v, err := V2FromCodecs(a)
	if err != nil {
		return nil, err
	}
	doc, err := zarrayFields(a, v)
	if err != nil {
		return nil, err
	}
	return marshalNoHTML(doc)
}

func zarrayFields(a *ArrayMeta, v *V2Array) (map[string]json.RawMessage, error) {
	doc := map[string]json.RawMessage{}
	for k, val := range v.Extra {
		doc[k] = val
	}
	fill, err := v2Fill(a, v)
	if err != nil {
		return nil, err
	}
	dt := quote(v.DType)
	if strings.HasPrefix(v.DType, "[") {
		dt = json.RawMessage(v.DType) // a structured dtype's JSON list
	}
	std := map[string]json.RawMessage{
		"zarr_format": json.RawMessage("2"),
		"shape":       ints(a.Shape),
		"chunks":      ints(a.ChunkShape),
		"dtype":       dt,
		"order":       quote(v.Order),
		"fill_value":  fill,
		"compressor":  json.RawMessage("null"),
		"filters":     json.RawMessage("null"),
	}
	if v.DimensionSeparator != "" {
		std["dimension_separator"] = quote(v.DimensionSeparator)
	}
	if v.Compressor != nil {
		if std["compressor"], err = numcodecsJSON(*v.Compressor); err != nil {
			return nil, fmt.Errorf("compressor: %w", err)
		}
	}
	if len(v.Filters) > 0 {
		if std["filters"], err = numcodecsList(v.Filters); err != nil {
			return nil, fmt.Errorf("filters: %w", err)
		}
	}
	for k, val := range std {
		doc[k] = val
	}
	return doc, nil
}

// v2Fill writes the fill value as it was written when that still decodes
// to the same value, else as zarr-python 2 would.
func v2Fill(a *ArrayMeta, v *V2Array) (json.RawMessage, error) {
	if v.FillJSON != nil {
		b, err := parseV2Fill(a.DataType, v.FillJSON, v.DType)
		if err == nil && (b == nil) == (a.FillValue == nil) && bytes.Equal(b, a.FillValue) {
			return compact(v.FillJSON), nil
		}
	}
	fill := a.FillValue
	if structBigEndian(a.DataType, v.DType) {
		fill = slices.Clone(fill)
		a.DataType.SwapElements(fill)
	}
	return dtype.FormatFill(a.DataType, fill, true)
}

// parseV2Fill reads a v2 fill value of type dt, whose dtype is typestr:
// the base64 fill of a big-endian structured dtype holds its fields in
// that order (zarr-python 2 encodes the numpy scalar's bytes).
func parseV2Fill(dt dtype.DataType, raw json.RawMessage, typestr string) ([]byte, error) {
	fill, err := dtype.ParseFill(dt, raw, true)
	if err == nil && fill != nil && structBigEndian(dt, typestr) {
		if v := bytes.TrimSpace(raw); len(v) > 0 && v[0] == '"' {
			dt.SwapElements(fill)
		}
	}
	return fill, err
}

// structBigEndian reports whether a struct type's v2 dtype is big endian.
func structBigEndian(dt dtype.DataType, typestr string) bool {
	if dt.Kind != dtype.Struct {
		return false
	}
	_, end, err := parseV2DType(typestr)
	return err == nil && end == dtype.Big
}

// numcodecsJSON writes {"id": name, ...configuration}.
func numcodecsJSON(e Extension) (json.RawMessage, error) {
	f := fields{}
	if e.Configuration != nil {
		var err error
		if f, err = decodeObject(e.Configuration); err != nil {
			return nil, fmt.Errorf("%s: configuration: %w", e.Name, err)
		}
	}
	if _, clash := f["id"]; clash {
		return nil, fmt.Errorf("%s: configuration has an \"id\" key", e.Name)
	}
	f["id"] = quote(e.Name)
	return marshalNoHTML(map[string]json.RawMessage(f))
}

func numcodecsList(list []Extension) (json.RawMessage, error) {
	b := []byte{'['}
	for i, e := range list {
		c, err := numcodecsJSON(e)
		if err != nil {
			return nil, err
		}
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, c...)
	}
	return append(b, ']'), nil
}

// MarshalV2 writes the group as .zgroup ({"zarr_format": 2}) and .zattrs
// (always returned, "{}" when empty; see ArrayMeta.MarshalV2). Consolidated
// metadata is written separately by MarshalV2Consolidated.
func (g *GroupMeta) MarshalV2() (zgroup, zattrs []byte, err error) {
	zgroup, err = indent([]byte(`{"zarr_format":2}`), "    ")
	if err != nil {
		return nil, nil, err
	}
	if zattrs, err = attrsV2(g.Attributes); err != nil {
		return nil, nil, err
	}
	return zgroup, zattrs, nil
}
