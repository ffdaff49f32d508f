package registry

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/zarrgw/zarrgw/core/extension"
	"github.com/zarrgw/zarrgw/core/meta"
	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/pluginapi"
	"github.com/zarrgw/zarrgw/plugins/codecs/builtin"
	"github.com/zarrgw/zarrgw/plugins/stores/fs"
	shardtransformer "github.com/zarrgw/zarrgw/plugins/transformers/sharding"
)

// ServeBundled serves one bundled extension as a plugin: a codec (by name
// or alias), the fs store or the sharding transformer. zarrgw runs it as
// "zarrgw plugin serve NAME", so one binary ships every plugin. It returns
// only on an unknown name; otherwise the process ends when the host ends it.
func ServeBundled(name string) error {
	if reg, ok := builtin.Registry().Lookup(name); ok {
		m, _ := bundledManifest(extension.Codec, reg.Name)
		pluginapi.Serve(pluginapi.Extensions{
			Codecs: []pluginapi.CodecExtension{{Manifest: m, New: reg.New}},
			// Nested chains (sharding_indexed) run in this process too.
			Resolver: builtin.Registry(),
		})
		return nil
	}
	if m, ok := bundledManifest(extension.Store, name); ok && m.Name == fs.Name {
		pluginapi.ServeStore(pluginapi.StoreExtension{Manifest: m, New: openFS})
		return nil
	}
	if m, ok := bundledManifest(extension.Transformer, name); ok && m.Name == shardtransformer.Name {
		pluginapi.ServeTransformer(pluginapi.TransformerExtension{Manifest: m, New: newSharding})
		return nil
	}
	return fmt.Errorf("no bundled codec, store or transformer can be served as %q", name)
}

func bundledManifest(kind extension.Kind, name string) (extension.Manifest, bool) {
	m, ok := Bundled().Manifest(kind, name)
	if !ok && kind == extension.Codec {
		return extension.Manifest{Kind: kind, Name: name}, true
	}
	return m, ok
}

// fsConfig is the fs store's configuration (its schema is fsSchema).
type fsConfig struct {
	Root    string `json:"root"`
	DirSync *bool  `json:"dir_sync"`
}

func openFS(config json.RawMessage) (store.Store, error) {
	var c fsConfig
	if err := strictJSON(config, &c); err != nil {
		return nil, fmt.Errorf("fs: configuration: %w", err)
	}
	var opts []fs.Option
	if c.DirSync != nil {
		opts = append(opts, fs.WithDirSync(*c.DirSync))
	}
	return fs.New(c.Root, opts...)
}

// shardingConfig is the transformer's configuration out of process: its
// metadata configuration plus the array's key layout, which in process
// comes from the array metadata the plugin never sees.
type shardingConfig struct {
	ChunksPerShard []int           `json:"chunks_per_shard"`
	Type           *string         `json:"type,omitempty"`
	Layout         *shardingLayout `json:"layout"`
}

type shardingLayout struct {
	Prefix    string `json:"prefix"`
	AnyDepth  bool   `json:"any_depth,omitempty"`
	Encoding  string `json:"encoding"`
	Separator string `json:"separator"`
}

func newSharding(config json.RawMessage, next store.Store) (store.Store, error) {
	var c shardingConfig
	if err := strictJSON(config, &c); err != nil {
		return nil, fmt.Errorf("%s: configuration: %w", shardtransformer.Name, err)
	}
	if c.Layout == nil {
		return nil, fmt.Errorf("%s: configuration: missing layout", shardtransformer.Name)
	}
	cps, err := shardtransformer.ParseConfig(config, len(c.ChunksPerShard))
	if err != nil {
		return nil, err
	}
	l := shardtransformer.Layout{
		Prefix:   c.Layout.Prefix,
		AnyDepth: c.Layout.AnyDepth,
		Encoding: meta.ChunkKeyEncoding{Name: c.Layout.Encoding, Separator: c.Layout.Separator},
	}
	return shardtransformer.New(next, l, cps)
}

func strictJSON(data json.RawMessage, v any) error {
	if len(bytes.TrimSpace(data)) == 0 {
		data = json.RawMessage("{}")
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}
