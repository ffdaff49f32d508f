package meta

import (
	"encoding/json"
	"fmt"
)

// ToV3 returns an array's metadata as Zarr v3: the same shape, chunking,
// data type, codecs (v2 and draft arrays already hold theirs as v3
// codecs), fill value and attributes; chunk keys in the default encoding
// (the chunks are rewritten). xarray's _ARRAY_DIMENSIONS attribute becomes
// dimension_names when the array has none, and leaves the attributes (it
// stays when it says something else than dimension_names), as xarray
// itself writes v3 (see XarrayDimensionsKey); ToV2 puts it back. This is
// where ToV3 parts from zarr-python 3's migration, which keeps the
// attributes as they are and writes no dimension_names (zarr-python
// 11148be, src/zarr/metadata/migrate_v3.py, _convert_array_metadata:
// "attributes=metadata_v2.attributes, dimension_names=None"), so that
// xarray, which reads v3 names from dimension_names only, fails on its
// output ("missing the `dimension_names` metadata"). A v2 fill value of
// null becomes the data type's zero. numpy's fixed-width types become
// zarr-python 3's extension types (S: null_terminated_bytes, U:
// fixed_length_utf32, V: raw_bytes; see marshalV3DataType), with the
// bytes codec the v2 metadata already implies: an endian for U, none for
// S and V, as zarr-python 3's own migration writes it (zarr-python
// d44f9f9, src/zarr/metadata/migrate_v3.py:200-204); datetimes become
// numpy.datetime64 / numpy.timedelta64 with their unit. A type with no v3
// form (a struct with a numpy subarray field) is refused, naming it.
func (a *ArrayMeta) ToV3() (*ArrayMeta, error) {
	if _, err := marshalV3DataType(a.DataType); err != nil {
		return nil, fmt.Errorf("data type %s (%s) has no Zarr v3 form that zarrgw writes: %w", a.DataType.Name, a.DataType.Kind, err)
	}
	m := *a
	m.Format = V3
	m.V2 = nil
	m.ChunkKey = ChunkKeyEncoding{Name: "default", Separator: "/"}
	m.Shape = append([]int(nil), a.Shape...)
	m.ChunkShape = append([]int(nil), a.ChunkShape...)
	m.ChunkEdges = CloneEdges(a.ChunkEdges)
	m.Codecs = append([]Extension(nil), a.Codecs...)
	if m.FillValue == nil {
		m.FillValue = make([]byte, a.DataType.Size)
	}
	if names, ok := xarrayDimensions(a.Attributes, len(a.Shape)); ok && (m.DimensionNames == nil || sameNames(names, m.DimensionNames)) {
		m.DimensionNames = names
		m.Attributes, _ = withoutMember(a.Attributes, XarrayDimensionsKey)
	}
	if len(m.Attributes) == 0 {
		m.Attributes = json.RawMessage(`{}`)
	}
	return &m, nil
}

// ToV3 returns a group's metadata as Zarr v3, attributes kept and
// consolidated metadata dropped (it describes the old documents).
func (g *GroupMeta) ToV3() *GroupMeta {
	out := &GroupMeta{Format: V3, Attributes: g.Attributes}
	if len(out.Attributes) == 0 {
		out.Attributes = json.RawMessage(`{}`)
	}
	return out
}
