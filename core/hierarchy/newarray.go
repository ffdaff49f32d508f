package hierarchy

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/dtype"
	"github.com/zarrgw/zarrgw/core/meta"
)

// ArraySpec is a new Zarr v3 array as its maker states it; what it
// leaves out takes the defaults of NewArrayMeta.
type ArraySpec struct {
	Shape    []int
	DataType dtype.DataType
	// Chunks is the chunk shape; nil for one chunk of the whole shape.
	Chunks []int
	// ChunkEdges, when set, make the grid rectilinear: the chunk edges
	// of each dimension (Chunks is then ignored).
	ChunkEdges []meta.Edges
	// FillValue is the fill value's bytes (dtype.ParseFill); nil for the
	// data type's default (zero).
	FillValue []byte
	// DimensionNames name the dimensions, one each; nil for none.
	DimensionNames []string
	// Attributes are a JSON object; nil for {}.
	Attributes json.RawMessage
	// Codecs are the codec chain; nil for DefaultCodecs.
	Codecs []meta.Extension
}

// defaultCodecs is zarr-python's default chain for fixed-size types.
const defaultCodecs = `[{"name":"bytes","configuration":{"endian":"little"}},{"name":"zstd","configuration":{"level":0,"checksum":false}}]`

// DefaultCodecs are the codecs of a new array that names none:
// zarr-python's default for fixed-size types, bytes (little-endian) then
// zstd.
func DefaultCodecs() []meta.Extension {
	exts, err := meta.ParseExtensions(json.RawMessage(defaultCodecs))
	if err != nil {
		panic(fmt.Sprintf("the default codecs do not parse: %v", err)) // a constant: found by any test
	}
	return exts
}

// NewArrayMeta is the metadata of the new v3 array s describes, with the
// default chunk key encoding ("/" separated, as zarr-python writes).
// The chain is taken as given: CanonicalCodecs puts it in the form its
// codecs report, and array.Probe tries it.
func NewArrayMeta(s ArraySpec) (*meta.ArrayMeta, error) {
	if s.DimensionNames != nil && len(s.DimensionNames) != len(s.Shape) {
		return nil, fmt.Errorf("%d dimension names for %d dimensions", len(s.DimensionNames), len(s.Shape))
	}
	m := &meta.ArrayMeta{
		Format: meta.V3, Shape: s.Shape, ChunkShape: s.Chunks, DataType: s.DataType, FillValue: s.FillValue,
		ChunkKey:   meta.ChunkKeyEncoding{Name: "default", Separator: "/"},
		Attributes: s.Attributes, Codecs: s.Codecs,
	}
	if s.ChunkEdges != nil {
		m.ChunkEdges = meta.CloneEdges(s.ChunkEdges)
		m.ChunkShape = meta.LongestChunks(s.ChunkEdges)
	}
	if m.ChunkShape == nil {
		m.ChunkShape = s.Shape
	}
	if m.FillValue == nil {
		m.FillValue = dtype.DefaultFill(s.DataType)
	}
	if m.Attributes == nil {
		m.Attributes = json.RawMessage(`{}`)
	}
	if m.Codecs == nil {
		m.Codecs = DefaultCodecs()
	}
	for i := range s.DimensionNames {
		m.DimensionNames = append(m.DimensionNames, &s.DimensionNames[i])
	}
	return m, nil
}

// CanonicalCodecs replaces the configuration of each codec of exts with
// the one the codec reports, so the metadata spells out defaults (zstd's
// checksum, say) that other implementations require.
func CanonicalCodecs(ctx context.Context, exts []meta.Extension, r codec.Resolver) error {
	for i, e := range exts {
		c, err := r.Codec(ctx, e.Name, e.Configuration)
		if err != nil {
			return fmt.Errorf("codec %q: %w", e.Name, err)
		}
		exts[i].Configuration = c.Configuration()
	}
	return nil
}
