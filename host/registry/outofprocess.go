package registry

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/zarrgw/zarrgw/core/array"
	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/extension"
	"github.com/zarrgw/zarrgw/core/meta"
	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/host/launcher"
	"github.com/zarrgw/zarrgw/pluginapi"
	"github.com/zarrgw/zarrgw/plugins/codecs/builtin"
	"github.com/zarrgw/zarrgw/plugins/stores/fs"
	shardtransformer "github.com/zarrgw/zarrgw/plugins/transformers/sharding"
)

// BundledPrefix starts the launcher name of each bundled extension run out
// of process ("zarrgw/zstd"), which is how errors and logs name it.
const BundledPrefix = "zarrgw/"

// OutOfProcess adds to l a plugin for every bundled codec and for the fs
// store, each served by self (the zarrgw binary, pinned to its current
// checksum) re-executed as "zarrgw plugin serve NAME". It returns a
// resolver building every bundled codec in its plugin, and a function
// opening fs stores in theirs. Nothing starts until first used.
func OutOfProcess(l *launcher.Launcher, self string) (codec.Resolver, func(dir string) (store.Store, error), error) {
	sum, err := launcher.Checksum(self)
	if err != nil {
		return nil, nil, err
	}
	add := func(m extension.Manifest) (*launcher.Plugin, error) {
		return l.Add(launcher.Spec{
			Name: BundledPrefix + m.Name, Path: self, SHA256: sum,
			Args: []string{"plugin", "serve", m.Name}, Manifests: []extension.Manifest{m},
		})
	}
	r := &bundledResolver{registry: builtin.Registry(), plugins: map[string]*launcher.Plugin{}}
	for _, reg := range builtin.Registrations() {
		m, _ := bundledManifest(extension.Codec, reg.Name)
		if r.plugins[reg.Name], err = add(m); err != nil {
			return nil, nil, err
		}
	}
	m, _ := bundledManifest(extension.Store, fs.Name)
	fsPlugin, err := add(m)
	if err != nil {
		return nil, nil, err
	}
	open := func(dir string) (store.Store, error) {
		ctx, cancel := context.WithTimeout(context.Background(), pluginapi.DefaultTimeout)
		defer cancel()
		config, _ := json.Marshal(fsConfig{Root: dir})
		return fsPlugin.Store(ctx, fs.Name, config)
	}
	return r, open, nil
}

// bundledResolver maps a codec name or alias to the plugin of its
// registration and builds the codec there.
type bundledResolver struct {
	registry *codec.Registry
	plugins  map[string]*launcher.Plugin
}

func (r *bundledResolver) Codec(name string, config json.RawMessage) (codec.Codec, error) {
	reg, ok := r.registry.Lookup(name)
	if !ok {
		return nil, fmt.Errorf("%w: %s", codec.ErrUnavailable, name)
	}
	ctx, cancel := context.WithTimeout(context.Background(), pluginapi.DefaultTimeout)
	defer cancel()
	return r.plugins[reg.Name].Codec(ctx, name, config)
}

// OutOfProcessTransformers adds to l a plugin serving the sharding storage
// transformer from self and returns an array.TransformerResolver that
// builds it there over the array's store.
func OutOfProcessTransformers(l *launcher.Launcher, self string) (array.TransformerResolver, error) {
	sum, err := launcher.Checksum(self)
	if err != nil {
		return nil, err
	}
	m, _ := bundledManifest(extension.Transformer, shardtransformer.Name)
	p, err := l.Add(launcher.Spec{
		Name: BundledPrefix + m.Name, Path: self, SHA256: sum,
		Args: []string{"plugin", "serve", m.Name}, Manifests: []extension.Manifest{m},
	})
	if err != nil {
		return nil, err
	}
	return transformerResolver{p}, nil
}

type transformerResolver struct{ p *launcher.Plugin }

// Transformer sends the plugin what it cannot read from metadata itself:
// the array's chunk key layout.
func (t transformerResolver) Transformer(ctx context.Context, ext meta.Extension, next store.Store, a *meta.ArrayMeta, path string) (store.Store, error) {
	if !shardtransformer.Handles(ext.Name) {
		return nil, errors.New("storage transformer not available: " + ext.Name)
	}
	cps, err := shardtransformer.ParseConfig(ext.Configuration, len(a.Shape))
	if err != nil {
		return nil, err
	}
	l := shardtransformer.ArrayLayout(a, path)
	config, err := json.Marshal(shardingConfig{ChunksPerShard: cps, Layout: &shardingLayout{
		Prefix: l.Prefix, AnyDepth: l.AnyDepth, Encoding: l.Encoding.Name, Separator: l.Encoding.Separator,
	}})
	if err != nil {
		return nil, err
	}
	return t.p.Transformer(ctx, shardtransformer.Name, config, next)
}
