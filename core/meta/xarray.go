package meta

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// XarrayDimensionsKey is the attribute in which xarray keeps the names of
// a Zarr v2 array's dimensions (a list of strings, one per dimension; []
// for a 0-d array). Zarr v3 has dimension_names instead, and xarray writes
// one or the other by format, never both (pydata/xarray 0063b2b,
// xarray/backends/zarr.py, ZarrStore.set_variables: "if
// is_zarr_v3_format: encoding["dimension_names"] = dims else:
// encoded_attrs[DIMENSION_KEY] = dims"); reading v2 it hides the
// attribute from the variable's attributes (_get_zarr_dims_and_attrs).
const XarrayDimensionsKey = "_ARRAY_DIMENSIONS"

// xarrayDimensions reads _ARRAY_DIMENSIONS when it is a list of rank
// names (strings, or null for an unnamed dimension, which v3's
// dimension_names also allows).
func xarrayDimensions(attrs json.RawMessage, rank int) ([]*string, bool) {
	f, err := decodeObject(attrs)
	if err != nil {
		return nil, false
	}
	raw, ok := f[XarrayDimensionsKey]
	if !ok {
		return nil, false
	}
	names, err := parseDimensionNames(raw, rank)
	if err != nil {
		return nil, false
	}
	return names, true
}

// sameNames compares two lists of dimension names, null with null.
func sameNames(x, y []*string) bool {
	if len(x) != len(y) || (x == nil) != (y == nil) {
		return false
	}
	for i := range x {
		if (x[i] == nil) != (y[i] == nil) || x[i] != nil && *x[i] != *y[i] {
			return false
		}
	}
	return true
}

// withXarrayDimensions returns attrs with names as _ARRAY_DIMENSIONS, the
// first member (where xarray writes it); attrs as they are when names is
// nil or the attribute already says the same. An attribute that names the
// dimensions otherwise is an error: v2 has room for one list only.
func withXarrayDimensions(attrs json.RawMessage, names []*string) (json.RawMessage, error) {
	if names == nil {
		return attrs, nil
	}
	list, err := marshalNoHTML(names)
	if err != nil {
		return nil, err
	}
	members, err := objectMembers(attrs)
	if err != nil {
		return nil, fmt.Errorf("attributes: %w", err)
	}
	for _, m := range members {
		if m.key != XarrayDimensionsKey {
			continue
		}
		if !jsonEqual(m.value, list) {
			return nil, fmt.Errorf("dimension_names %s disagree with the attribute %s %s, which would hold them in Zarr v2",
				list, XarrayDimensionsKey, abbreviate(m.value))
		}
		return attrs, nil
	}
	return marshalMembers(append([]member{{XarrayDimensionsKey, list}}, members...)), nil
}

// withoutMember returns the object attrs without key (in the order of
// the others), and whether it was there.
func withoutMember(attrs json.RawMessage, key string) (json.RawMessage, bool) {
	members, err := objectMembers(attrs)
	if err != nil {
		return attrs, false
	}
	kept := members[:0]
	for _, m := range members {
		if m.key != key {
			kept = append(kept, m)
		}
	}
	if len(kept) == len(members) {
		return attrs, false
	}
	return marshalMembers(kept), true
}

// member is one key and value of a JSON object.
type member struct {
	key   string
	value json.RawMessage
}

// objectMembers lists the members of a JSON object in document order
// (decoding into a map would sort them); empty input is the empty object.
func objectMembers(raw json.RawMessage) ([]member, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, errors.New("not a JSON object")
	}
	var out []member
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, ok := tok.(string)
		if !ok {
			return nil, errors.New("not a JSON object")
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		out = append(out, member{key, v})
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	return out, nil
}

func marshalMembers(members []member) json.RawMessage {
	o := newObject()
	for _, m := range members {
		o.add(m.key, compact(m.value))
	}
	return o.bytes()
}
