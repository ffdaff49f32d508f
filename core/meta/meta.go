// Package meta reads and writes Zarr metadata documents: v3 zarr.json
// (arrays and groups, with inline consolidated metadata), v2
// .zarray/.zgroup/.zattrs/.zmetadata, and the 2019-2022 draft v3 layout
// (read only). Every format is normalised into ArrayMeta / GroupMeta, whose
// codec chain is always expressed in v3 terms; what a rewrite needs to
// reproduce the original document (unknown must_understand:false fields,
// v2 filters and compressor, attributes verbatim) is kept alongside.
package meta

import (
	"encoding/json"

	"github.com/zarrgw/zarrgw/core/dtype"
)

// Format is the metadata format of a node.
type Format int

const (
	V2      Format = 2
	V3      Format = 3
	V3Draft Format = 30 // the 2019-2022 draft v3 layout (meta/root/..., data/root/...)
)

func (f Format) String() string {
	switch f {
	case V2:
		return "v2"
	case V3:
		return "v3"
	case V3Draft:
		return "v3-draft"
	}
	return "unknown"
}

// ChunkKeyEncoding names how chunk grid coordinates become store keys,
// relative to the array's prefix.
type ChunkKeyEncoding struct {
	// Name is "default" (c/1/2), "v2" (1.2) or "draft" (c1/2, relative to
	// data/root/<path>/).
	Name      string
	Separator string // "/" or "."
}

// ArrayMeta is an array's metadata, normalised across formats.
type ArrayMeta struct {
	Format     Format
	Shape      []int
	ChunkShape []int // the regular chunk grid's chunk shape (for sharded arrays: the shard shape); for a rectilinear grid its longest edges, a bound on every chunk
	// ChunkEdges is the rectilinear chunk grid's edges per dimension; nil
	// for a regular grid.
	ChunkEdges []Edges
	DataType   dtype.DataType
	// FillValue is one element in memory form (see codec.Spec.FillValue);
	// nil when the metadata says null (v2, draft).
	FillValue []byte
	ChunkKey  ChunkKeyEncoding
	// Codecs is the whole v3 codec chain. For v2 and draft arrays it is
	// derived: transpose (order F), then the v2 filters that are
	// array->array, then the array->bytes codec ("bytes" with the dtype's
	// byte order, or an object codec such as vlen-utf8 / json2), then the
	// bytes->bytes filters, then the compressor.
	Codecs              []Extension
	StorageTransformers []Extension
	DimensionNames      []*string       // nil when absent
	Attributes          json.RawMessage // a JSON object; "{}" when empty

	// V2 keeps the fields of a v2 .zarray (nil for other formats), so a
	// rewrite reproduces them.
	V2 *V2Array
	// Extra holds unknown top-level fields that were allowed because they
	// are objects with must_understand: false; they are written back as is.
	Extra map[string]json.RawMessage
}

// V2Array holds the v2-only fields of a .zarray.
type V2Array struct {
	DType              string // as written, e.g. ">i8"
	Order              string // "C" or "F"
	Filters            []Extension
	Compressor         *Extension // nil for null
	DimensionSeparator string     // "" when absent

	// FillJSON is fill_value exactly as written (null when absent).
	// MarshalV2 writes it back while it still decodes to the array's
	// FillValue, so 0 vs 0.0, a NaN payload, or an object array's 0 survive.
	FillJSON json.RawMessage
	// Extra holds keys the v2 spec does not define (ignored on read, as
	// the spec says; written back as is).
	Extra map[string]json.RawMessage
}

// GroupMeta is a group's metadata.
type GroupMeta struct {
	Format     Format
	Attributes json.RawMessage // a JSON object; "{}" when empty
	// Consolidated holds inline (v3) or .zmetadata (v2) consolidated
	// metadata when present: the documents of every node below, keyed by
	// path relative to this group ("a/b", no leading slash).
	Consolidated *Consolidated
	Extra        map[string]json.RawMessage
}

// Consolidated is the metadata of every node below a group.
type Consolidated struct {
	Arrays map[string]*ArrayMeta
	Groups map[string]*GroupMeta
}
