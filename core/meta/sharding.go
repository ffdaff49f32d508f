package meta

import "encoding/json"

// shardingNames are the names metadata gives the v3 sharding codec: its
// registered name and its spec URI. Its inner chunks are what readers
// decode, and its index what they read whole.
var shardingNames = map[string]bool{
	"sharding_indexed": true,
	"https://zarr-specs.readthedocs.io/en/latest/v3/codecs/sharding-indexed/v1.0.html": true,
}

// shardingConfig reads the inner chunk shape and inner codecs of a
// sharding codec's configuration; ok is false for another codec, or a
// configuration that cannot be read (the codec refuses it itself).
func shardingConfig(c Extension) (inner []int, codecs []Extension, ok bool) {
	if !shardingNames[c.Name] {
		return nil, nil, false
	}
	var cfg struct {
		ChunkShape []int           `json:"chunk_shape"`
		Codecs     json.RawMessage `json:"codecs"`
	}
	if json.Unmarshal(c.Configuration, &cfg) != nil {
		return nil, nil, false
	}
	codecs, _ = ParseExtensions(cfg.Codecs)
	return cfg.ChunkShape, codecs, true
}

// shardingChunkShape reads only the inner chunk shape of a sharding
// codec's configuration (as shardingConfig does, without building the
// inner codec list): readers ask for it on every read.
func shardingChunkShape(c Extension) ([]int, bool) {
	if !shardingNames[c.Name] {
		return nil, false
	}
	var cfg struct {
		ChunkShape []int `json:"chunk_shape"`
	}
	if json.Unmarshal(c.Configuration, &cfg) != nil {
		return nil, false
	}
	return cfg.ChunkShape, true
}

// soleSharding is the inner chunk shape of an array whose chain is one
// sharding codec (as the v3 spec defines sharded arrays: read an inner
// chunk at a time), or nil.
func (a *ArrayMeta) soleSharding() []int {
	if len(a.Codecs) != 1 {
		return nil
	}
	inner, ok := shardingChunkShape(a.Codecs[0])
	if !ok || len(inner) != len(a.ChunkShape) {
		return nil
	}
	return inner
}

// InnerChunkShape is the shape of the inner chunks of a sharded array
// (its chain is one sharding codec) when they tile its chunks (every
// chunk of a rectilinear grid), or nil.
func (a *ArrayMeta) InnerChunkShape() []int {
	inner := a.soleSharding()
	if a.shardEdgesUntiled(inner) != nil {
		return nil
	}
	for i, n := range inner {
		if n < 1 || a.ChunkShape[i]%n != 0 {
			return nil
		}
	}
	return inner
}

// shardEdgesUntiled is the refusal of a rectilinear grid of shards that
// inner chunks do not tile: each of its edge lengths must be a multiple of
// the inner chunk (the sharding codec's condition, for every shard).
func (a *ArrayMeta) shardEdgesUntiled(inner []int) error {
	for d, e := range a.ChunkEdges {
		if d >= len(inner) || inner[d] < 1 {
			return nil
		}
		if e.Uniform > 0 && e.Uniform%inner[d] != 0 {
			return invalidf("chunk_grid.chunk_shapes[%d]: shards of %d are not a multiple of the inner chunks of %d (sharding_indexed chunk_shape %v)", d, e.Uniform, inner[d], inner)
		}
		for _, r := range e.Runs {
			if r.Length%inner[d] != 0 {
				return invalidf("chunk_grid.chunk_shapes[%d]: shards of %d are not a multiple of the inner chunks of %d (sharding_indexed chunk_shape %v)", d, r.Length, inner[d], inner)
			}
		}
	}
	return nil
}
