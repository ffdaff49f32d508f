package render

import (
	"context"
	"encoding/json"

	"github.com/zarrgw/zarrgw/core/array"
	"github.com/zarrgw/zarrgw/core/hierarchy"
	"github.com/zarrgw/zarrgw/core/meta"
	"github.com/zarrgw/zarrgw/core/store"
)

// NodeJSON is one node of "zarrgw inspect --json", in the order Tree
// prints them (a group, then what is below it). Field names are stable;
// new fields may be added. Array fields are absent for groups.
type NodeJSON struct {
	// Path is the node's path inside the hierarchy: "" for the root,
	// "a/b" below it.
	Path string `json:"path"`
	Kind string `json:"kind"` // "array" or "group"
	// ZarrFormat is 2 or 3; Layout tells v3 from the 2019-2022 draft
	// ("v2", "v3", "v3-draft").
	ZarrFormat int    `json:"zarr_format"`
	Layout     string `json:"layout"`
	// Implicit: a group without a metadata document; Consolidated: a group
	// holding consolidated metadata.
	Implicit     bool `json:"implicit,omitempty"`
	Consolidated bool `json:"consolidated,omitempty"`

	Shape []int `json:"shape,omitempty"`
	// DataType is named as the metadata names it ("float32", "<f4").
	DataType string `json:"data_type,omitempty"`
	// Chunks is the chunk grid's chunk shape (a sharded array's shard
	// shape); of a rectilinear grid, its longest chunks.
	Chunks []int `json:"chunks,omitempty"`
	// ChunkShapes are a rectilinear grid's edges as zarr.json writes them.
	ChunkShapes json.RawMessage `json:"chunk_shapes,omitempty"`
	// FillValue is as zarrgw cat prints an element; null when the
	// metadata has none.
	FillValue           json.RawMessage `json:"fill_value,omitempty"`
	Codecs              []ExtensionJSON `json:"codecs,omitempty"`
	StorageTransformers []ExtensionJSON `json:"storage_transformers,omitempty"`
	ChunkKeyEncoding    *ChunkKeyJSON   `json:"chunk_key_encoding,omitempty"`
	DimensionNames      []*string       `json:"dimension_names,omitempty"`
	// ShardLayout is the line Tree prints below a sharded array.
	ShardLayout string `json:"shard_layout,omitempty"`

	Attributes json.RawMessage `json:"attributes"`
}

// ExtensionJSON is a codec or storage transformer as zarr.json writes it.
type ExtensionJSON struct {
	Name          string          `json:"name"`
	Configuration json.RawMessage `json:"configuration,omitempty"`
}

// ChunkKeyJSON is a chunk key encoding: "default", "v2" or "draft", and
// its separator.
type ChunkKeyJSON struct {
	Name      string `json:"name"`
	Separator string `json:"separator"`
}

// Nodes describes the node and everything below it, as Tree prints them.
func Nodes(ctx context.Context, s store.Store, root hierarchy.Node, opts array.Options) ([]NodeJSON, error) {
	out := []NodeJSON{}
	err := hierarchy.Walk(ctx, s, root, func(n hierarchy.Node) error {
		j := NodeJSON{Path: n.Path, Layout: n.Format().String(), ZarrFormat: int(n.Format())}
		if n.Format() == meta.V3Draft {
			j.ZarrFormat = 3
		}
		if n.Group != nil {
			j.Kind, j.Implicit, j.Consolidated = "group", n.Implicit, n.Group.Consolidated != nil
			j.Attributes = attributes(n.Group.Attributes)
			out = append(out, j)
			return nil
		}
		m := n.Array
		j.Kind = "array"
		j.Shape, j.Chunks, j.DataType = nonNil(m.Shape), nonNil(m.ChunkShape), DataTypeName(m)
		if m.Rectilinear() {
			j.ChunkShapes = meta.MarshalChunkShapes(m.ChunkEdges)
		}
		j.FillValue = json.RawMessage(fillValue(m))
		j.Codecs, j.StorageTransformers = extensions(m.Codecs), extensions(m.StorageTransformers)
		j.ChunkKeyEncoding = &ChunkKeyJSON{Name: m.ChunkKey.Name, Separator: m.ChunkKey.Separator}
		j.DimensionNames = m.DimensionNames
		j.Attributes = attributes(m.Attributes)
		if opts.Codecs != nil && usesSharding(m) {
			if a, err := array.New(ctx, s, n.Path, m, opts); err == nil {
				if layout, err := ShardLayout(ctx, a); err == nil {
					j.ShardLayout = layout
				}
			}
		}
		out = append(out, j)
		return nil
	})
	return out, err
}

func extensions(exts []meta.Extension) []ExtensionJSON {
	if len(exts) == 0 {
		return nil
	}
	out := make([]ExtensionJSON, len(exts))
	for i, e := range exts {
		out[i] = ExtensionJSON{Name: e.Name, Configuration: e.Configuration}
	}
	return out
}

func attributes(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return json.RawMessage(`{}`)
	}
	return raw
}
