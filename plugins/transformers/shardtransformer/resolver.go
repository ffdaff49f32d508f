package shardtransformer

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/zarrgw/zarrgw/core/meta"
	"github.com/zarrgw/zarrgw/core/store"
)

// Resolver builds the transformer for arrays whose metadata names it; it
// implements array.TransformerResolver.
type Resolver struct {
	Options Options
}

// Handles reports whether name is the transformer's name or an alias.
func Handles(name string) bool { return name == Name || slices.Contains(Aliases, name) }

// Transformer wraps next for the array at path: its chunk keys, in the
// array's chunk key encoding, are grouped chunks_per_shard to a shard.
func (r Resolver) Transformer(_ context.Context, ext meta.Extension, next store.Store, a *meta.ArrayMeta, path string) (store.Store, error) {
	if !Handles(ext.Name) {
		return nil, fmt.Errorf("storage transformer not available: %s", ext.Name)
	}
	cps, err := ParseConfig(ext.Configuration, len(a.Shape))
	if err != nil {
		return nil, err
	}
	return NewWith(next, ArrayLayout(a, path), cps, r.Options)
}

// ParseConfig reads {"chunks_per_shard": [...]} (and an optional "type",
// which must be "indexed") for an array of the given rank.
func ParseConfig(configuration json.RawMessage, rank int) ([]int, error) {
	var cfg struct {
		ChunksPerShard []int   `json:"chunks_per_shard"`
		Type           *string `json:"type"`
	}
	if len(configuration) == 0 {
		return nil, fmt.Errorf("%s: configuration is missing", Name)
	}
	if err := json.Unmarshal(configuration, &cfg); err != nil {
		return nil, fmt.Errorf("%s: configuration: %w", Name, err)
	}
	if cfg.Type != nil && *cfg.Type != "indexed" {
		return nil, fmt.Errorf("%s: unsupported binary shard format %q (only \"indexed\")", Name, *cfg.Type)
	}
	if len(cfg.ChunksPerShard) != rank {
		return nil, fmt.Errorf("%s: chunks_per_shard %v has %d entries, the array %d dimensions", Name, cfg.ChunksPerShard, len(cfg.ChunksPerShard), rank)
	}
	for _, n := range cfg.ChunksPerShard {
		if n <= 0 {
			return nil, fmt.Errorf("%s: chunks_per_shard %v: counts must be positive", Name, cfg.ChunksPerShard)
		}
	}
	return cfg.ChunksPerShard, nil
}
