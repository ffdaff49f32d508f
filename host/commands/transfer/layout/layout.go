// Package layout is what an array becomes in a rewrite (zarrgw cp with
// --to-format, --codecs, --chunks or shards): the metadata of its new
// layout, and the arithmetic of chunk grids that cutting a copy into
// chunks, pieces and partitions needs.
package layout

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/meta"
)

// Spec is what a rewrite changes of each array; its zero value changes
// nothing.
type Spec struct {
	ToFormat meta.Format      // 0: keep each node's format
	Codecs   []meta.Extension // nil: keep the codecs
	Chunks   []int            // nil: keep the chunk grid
	// ChunkEdges, with Chunks, asks for a rectilinear grid of these
	// edges (Chunks is then their longest chunks); nil with Chunks: a
	// regular grid.
	ChunkEdges  []meta.Edges
	Shard       []int // shard shape (nil: not sharded)
	InnerChunks []int // inner chunk shape of shards
	// ChunksPerShard shards every array, whatever its rank: shards of N
	// chunks along each dimension.
	ChunksPerShard int
}

// New is an array's metadata in the output format and layout:
// converted to v3 when asked (draft arrays always are, unless v2 is
// asked), its codecs then named as v3 registers them (resolved through
// r), or to v2 (an array v2 cannot hold is refused: meta.ErrNoV2Form);
// with the new chunk shape, codecs and sharding.
func New(ctx context.Context, src *meta.ArrayMeta, s Spec, r codec.Resolver) (*meta.ArrayMeta, error) {
	if s.Chunks != nil && src.Rectilinear() {
		// re-chunked: the source's edges are not the output's (and a
		// regular grid goes where v2 has no other)
		regular := *src
		regular.ChunkEdges, regular.ChunkShape = nil, s.Chunks
		src = &regular
	}
	m, err := convertArray(ctx, src, s, r)
	if err != nil {
		return nil, err
	}
	out := *m
	sharded := s.Shard != nil || s.InnerChunks != nil || s.ChunksPerShard > 0
	if out.Format != meta.V3 && (s.Codecs != nil || sharded) {
		return nil, fmt.Errorf("new codecs and shards need Zarr v3 output (--to-format 3); this array is %s", out.Format)
	}
	rank := len(out.Shape)
	for name, shape := range map[string][]int{"--chunks": s.Chunks, "--shard": s.Shard, "--inner-chunks": s.InnerChunks} {
		if shape != nil && len(shape) != rank {
			return nil, fmt.Errorf("%s has %d dimensions, the array %d", name, len(shape), rank)
		}
	}
	if s.ChunkEdges != nil && out.Format != meta.V3 {
		return nil, fmt.Errorf("--chunks: a rectilinear chunk grid needs Zarr v3 output (--to-format 3); this array is %s", out.Format)
	}
	if s.Chunks != nil {
		out.ChunkShape = append([]int(nil), s.Chunks...)
		out.ChunkEdges = meta.CloneEdges(s.ChunkEdges)
	}
	if s.Codecs != nil {
		out.Codecs = append([]meta.Extension(nil), s.Codecs...)
	}
	if sharded {
		if err := shard(&out, s); err != nil {
			return nil, err
		}
	}
	return &out, nil
}

// convertArray is an array's metadata in the output format.
func convertArray(ctx context.Context, src *meta.ArrayMeta, s Spec, r codec.Resolver) (*meta.ArrayMeta, error) {
	m := src
	var err error
	if s.ToFormat == meta.V3 || src.Format == meta.V3Draft {
		if m, err = src.ToV3(); err != nil {
			return nil, err
		}
		if src.Format != meta.V3 {
			if m.Codecs, err = canonicalCodecs(ctx, r, m); err != nil {
				return nil, err
			}
		}
	}
	if s.ToFormat == meta.V2 {
		// the chunk keys lose v3's "c" segment when the engine writes them
		// under the v2 encoding ToV2 gives; _ARRAY_DIMENSIONS carries the
		// dimension names
		return m.ToV2()
	}
	return m, nil
}

// shard makes the array's chunks shards: of shape --shard (else its chunk
// shape, or that many chunks per dimension with ChunksPerShard) holding
// inner chunks of --inner-chunks (else its chunk shape), each encoded with
// its codec chain; the index gets bytes and crc32c. An array that is
// sharded already is resharded: its inner chunks and chain are the ones
// sharded again, never a shard inside a shard.
func shard(m *meta.ArrayMeta, s Spec) error {
	if m.Rectilinear() && (s.Shard != nil || s.ChunksPerShard > 0 || s.InnerChunks == nil) {
		return fmt.Errorf("a rectilinear chunk grid's chunks are its shards: give --inner-chunks alone, a shape that divides every edge")
	}
	inner, chain, err := Inner(m)
	if err != nil {
		return err
	}
	if s.InnerChunks != nil {
		inner = s.InnerChunks
	}
	outer := m.ChunkShape
	switch {
	case s.Shard != nil:
		outer = s.Shard
	case s.ChunksPerShard > 0:
		outer = make([]int, len(inner))
		for i := range inner {
			outer[i] = inner[i] * s.ChunksPerShard
		}
	}
	for i := range outer {
		if inner[i] < 1 || outer[i]%inner[i] != 0 {
			return fmt.Errorf("inner chunks %v do not divide shards %v", inner, outer)
		}
	}
	codecs, err := meta.MarshalExtensions(chain)
	if err != nil {
		return err
	}
	innerShape, _ := json.Marshal(inner)
	cfg := fmt.Sprintf(`{"chunk_shape":%s,"codecs":%s,"index_codecs":[{"name":"bytes","configuration":{"endian":"little"}},{"name":"crc32c"}],"index_location":"end"}`,
		innerShape, codecs)
	m.ChunkShape = append([]int(nil), outer...)
	m.Codecs = []meta.Extension{{Name: "sharding_indexed", Configuration: json.RawMessage(cfg), MustUnderstand: true}}
	return nil
}

// Inner is the chunk shape and codec chain of an array's chunks as
// they would be sharded: those of its shards' inner chunks when it is
// sharded already, else its own.
func Inner(m *meta.ArrayMeta) ([]int, []meta.Extension, error) {
	if len(m.Codecs) != 1 || m.Codecs[0].Name != "sharding_indexed" {
		return m.ChunkShape, m.Codecs, nil
	}
	var cfg struct {
		ChunkShape []int           `json:"chunk_shape"`
		Codecs     json.RawMessage `json:"codecs"`
	}
	if err := json.Unmarshal(m.Codecs[0].Configuration, &cfg); err != nil {
		return nil, nil, fmt.Errorf("sharding_indexed configuration: %w", err)
	}
	chain, err := meta.ParseExtensions(cfg.Codecs)
	if err != nil {
		return nil, nil, fmt.Errorf("sharding_indexed codecs: %w", err)
	}
	return cfg.ChunkShape, chain, nil
}

// canonicalCodecs names each codec of a chain as v3 metadata must: by its
// registered name ("numcodecs.zlib", not the numcodecs id "zlib") and
// with its configuration in the registered form (blosc's shuffle as a
// name), as the codec built from it reports them. blosc learns its type
// size from the data type when its configuration leaves it out.
func canonicalCodecs(ctx context.Context, r codec.Resolver, m *meta.ArrayMeta) ([]meta.Extension, error) {
	out := make([]meta.Extension, len(m.Codecs))
	for i, e := range m.Codecs {
		c, err := r.Codec(ctx, e.Name, e.Configuration)
		if err != nil {
			return nil, fmt.Errorf("codec %s: %w", e.Name, err)
		}
		cfg := c.Configuration()
		if c.Name() == "blosc" {
			cfg = withTypeSize(cfg, m.DataType.Size)
		}
		out[i] = meta.Extension{Name: c.Name(), Configuration: cfg, MustUnderstand: true}
	}
	return out, nil
}

// withTypeSize adds "typesize" to a blosc configuration that lacks it (v2
// writes none: numcodecs takes it from the array).
func withTypeSize(cfg json.RawMessage, size int) json.RawMessage {
	var m map[string]any
	if json.Unmarshal(cfg, &m) != nil || m["typesize"] != nil || size == 0 {
		return cfg
	}
	m["typesize"] = size
	b, err := json.Marshal(m)
	if err != nil {
		return cfg
	}
	return b
}

// Group is a group's metadata in the output format. Consolidated
// metadata is left out: it would describe the old layout (--consolidate
// rebuilds it).
func Group(g *meta.GroupMeta, toFormat meta.Format) *meta.GroupMeta {
	switch {
	case toFormat == meta.V2:
		g = g.ToV2()
	case toFormat == meta.V3 || g.Format == meta.V3Draft:
		g = g.ToV3()
	}
	copied := *g
	copied.Consolidated = nil
	return &copied
}
