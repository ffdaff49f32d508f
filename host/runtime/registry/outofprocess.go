package registry

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/extension"
	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/host/runtime/launcher"
)

// BundledPrefix starts the launcher name of each bundled extension run out
// of process ("zarrgw/zstd"), which is how errors and logs name it.
const BundledPrefix = "zarrgw/"

// ServeArgs are the arguments that make the zarrgw binary serve one
// extension of its set as a plugin.
func ServeArgs(m extension.Manifest) []string {
	return []string{"plugin", "serve", "--kind", string(m.Kind), m.Name}
}

// OutOfProcess returns the set's extensions each running in a plugin of
// its own: self (a zarrgw binary with the same set, pinned to its current
// checksum) re-executed as "zarrgw plugin serve NAME". The plugins are
// added to l; nothing starts until first used.
func (s Set) OutOfProcess(l *launcher.Launcher, self string) (*Parts, error) {
	sum, err := launcher.Checksum(self)
	if err != nil {
		return nil, err
	}
	plugins := map[extension.Kind]map[string]*launcher.Plugin{}
	for _, m := range s.Manifests() {
		p, err := l.Add(launcher.Spec{
			Name: BundledPrefix + m.Name, Path: self, SHA256: sum, InheritEnv: true,
			Args: ServeArgs(m), Manifests: []extension.Manifest{m},
		})
		if err != nil {
			return nil, err
		}
		if plugins[m.Kind] == nil {
			plugins[m.Kind] = map[string]*launcher.Plugin{}
		}
		plugins[m.Kind][m.Name] = p
	}
	return &Parts{
		set:    s,
		codecs: &remoteCodecs{registry: s.CodecRegistry(), plugins: plugins[extension.Codec]},
		openStore: func(ctx context.Context, name string, config json.RawMessage) (store.Store, error) {
			r, ok := s.store(name)
			if !ok {
				return nil, fmt.Errorf("store type %q is not bundled", name)
			}
			return plugins[extension.Store][r.Manifest.Name].Store(ctx, r.Manifest.Name, config)
		},
		newTransformer: func(ctx context.Context, name string, config json.RawMessage, next store.Store) (store.Store, error) {
			r, ok := s.transformer(name)
			if !ok {
				return nil, fmt.Errorf("storage transformer %q is not bundled", name)
			}
			return plugins[extension.Transformer][r.Manifest.Name].Transformer(ctx, r.Manifest.Name, config, next)
		},
	}, nil
}

// remoteCodecs maps a codec name or alias to the plugin of its
// registration and builds the codec there.
type remoteCodecs struct {
	registry *codec.Registry
	plugins  map[string]*launcher.Plugin
}

func (r *remoteCodecs) Codec(ctx context.Context, name string, config json.RawMessage) (codec.Codec, error) {
	reg, ok := r.registry.Lookup(name)
	if !ok {
		return nil, fmt.Errorf("%w: %s", codec.ErrUnavailable, name)
	}
	return r.plugins[reg.Manifest.Name].Codec(ctx, name, config)
}
