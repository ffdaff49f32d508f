package shardtransformer

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/zarrgw/zarrgw/core/extension"
	"github.com/zarrgw/zarrgw/core/meta"
	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/core/transformer"
)

// Registration registers the transformer under its name and spec URIs.
// Its configuration is the metadata's ({"chunks_per_shard": [...]}) plus,
// for an array named in metadata, the array's chunk key layout (ForArray
// adds it, so the transformer builds the same in process and in a plugin).
// A configuration without a layout, as a dataset declares it, shards the
// chunk keys of every array below the dataset whose keys use the default
// "/" encoding and whose rank is that of chunks_per_shard; other keys pass
// through.
var Registration = transformer.Registration{
	Manifest: extension.Manifest{
		Kind: extension.Transformer,
		Name: Name,
		URIs: Aliases,
		ConfigSchema: json.RawMessage(`{"type":"object","required":["chunks_per_shard"],"properties":{
	"chunks_per_shard":{"type":"array","items":{"type":"integer","minimum":1},"description":"chunks per shard along each axis"}}}`),
	},
	New:      newFromConfig,
	ForArray: forArray,
}

// config is the transformer's configuration.
type config struct {
	ChunksPerShard []int         `json:"chunks_per_shard"`
	Type           *string       `json:"type,omitempty"`
	Layout         *configLayout `json:"layout,omitempty"`
}

// configLayout is Layout in the configuration.
type configLayout struct {
	Prefix    string `json:"prefix"`
	AnyDepth  bool   `json:"any_depth,omitempty"`
	Encoding  string `json:"encoding"`
	Separator string `json:"separator"`
}

// datasetLayout is the layout of a configuration without one.
var datasetLayout = configLayout{AnyDepth: true, Encoding: "default", Separator: "/"}

func newFromConfig(_ context.Context, configuration json.RawMessage, next store.Store) (store.Store, error) {
	var c config
	if err := extension.DecodeConfig(configuration, &c); err != nil {
		return nil, fmt.Errorf("%s: configuration: %w", Name, err)
	}
	cps, err := ParseConfig(configuration, len(c.ChunksPerShard))
	if err != nil {
		return nil, err
	}
	l := datasetLayout
	if c.Layout != nil {
		l = *c.Layout
	}
	return New(next, Layout{
		Prefix:   l.Prefix,
		AnyDepth: l.AnyDepth,
		Encoding: meta.ChunkKeyEncoding{Name: l.Encoding, Separator: l.Separator},
	}, cps)
}

// forArray adds the layout of the array's chunk keys, after checking the
// metadata's configuration against the array's rank.
func forArray(configuration json.RawMessage, a *meta.ArrayMeta, path string) (json.RawMessage, error) {
	cps, err := ParseConfig(configuration, len(a.Shape))
	if err != nil {
		return nil, err
	}
	l := ArrayLayout(a, path)
	return json.Marshal(config{ChunksPerShard: cps, Layout: &configLayout{
		Prefix: l.Prefix, AnyDepth: l.AnyDepth, Encoding: l.Encoding.Name, Separator: l.Encoding.Separator,
	}})
}
