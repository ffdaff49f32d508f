package registry

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/zarrgw/zarrgw/plugins/builtin"
	"sync"

	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/extension"
	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/core/transformer"
	"github.com/zarrgw/zarrgw/host/runtime/launcher"
)

// WithPlugins returns parts that resolve every name in one catalog: the
// set's extensions, which p opens, and the extensions of the plugins of l,
// learnt from their specs (a configuration's probed manifests) or, for a
// plugin that was not probed, by asking it (which starts it). The order is
// extension.Catalog's: a plugin's extension wins over a bundled one of the
// same name.
func (p *Parts) WithPlugins(l *launcher.Launcher) *Parts {
	r := &pluginCatalog{l: l, cat: p.set.Catalog(), learnt: map[string]bool{}, failed: map[string]error{}}
	return &Parts{
		set:    p.set,
		codecs: pluginCodecs{r, p.codecs},
		openStore: func(ctx context.Context, name string, config json.RawMessage) (store.Store, error) {
			e, err := r.lookup(ctx, extension.Store, name)
			if err != nil {
				return nil, err
			}
			if e.Bundled() {
				return p.OpenStore(ctx, e.Manifest.Name, config)
			}
			return r.plugin(e).Store(ctx, name, config)
		},
		newTransformer: func(ctx context.Context, name string, config json.RawMessage, next store.Store) (store.Store, error) {
			e, err := r.lookup(ctx, extension.Transformer, name)
			if err != nil {
				return nil, err
			}
			if e.Bundled() {
				return p.NewTransformer(ctx, e.Manifest.Name, config, next)
			}
			return r.plugin(e).Transformer(ctx, name, config, next)
		},
		bundledTransformer: func(ctx context.Context, name string) (transformer.Registration, bool) {
			if e, err := r.lookup(ctx, extension.Transformer, name); err != nil || !e.Bundled() {
				return transformer.Registration{}, false
			}
			return p.set.transformer(name)
		},
	}
}

// pluginCatalog is the catalog of the bundled extensions and the plugins
// of a launcher, learnt as the plugins are first needed.
type pluginCatalog struct {
	l      *launcher.Launcher
	mu     sync.Mutex
	cat    *extension.Catalog
	learnt map[string]bool
	failed map[string]error // plugins that could not say what they serve
}

// lookup resolves name of kind. When it resolves to nothing, the plugins
// that could not say what they serve are named, since one of them may be
// the one that serves it.
func (r *pluginCatalog) lookup(ctx context.Context, kind extension.Kind, name string) (extension.Entry, error) {
	r.learn(ctx)
	r.mu.Lock()
	defer r.mu.Unlock()
	if e, ok := r.cat.Lookup(kind, name); ok {
		return e, nil
	}
	errs := []error{fmt.Errorf("%s not available: %s: it is not bundled, and no plugin of the configuration serves it", kind, name)}
	if kind == extension.Codec {
		errs[0] = fmt.Errorf("%w: %s: it is not bundled, and no plugin of the configuration serves it", codec.ErrUnavailable, name)
		if why, ok := builtin.Unbundled()[name]; ok {
			errs[0] = fmt.Errorf("%w: %s: %s", codec.ErrUnavailable, name, why)
		}
	}
	for _, err := range r.failed {
		errs = append(errs, err)
	}
	return extension.Entry{}, errors.Join(errs...)
}

// learn adds the manifests of every plugin not learnt yet; a plugin that
// fails is asked again next time.
func (r *pluginCatalog) learn(ctx context.Context) {
	for _, p := range r.l.Plugins() {
		r.mu.Lock()
		done := r.learnt[p.Name()]
		r.mu.Unlock()
		if done {
			continue
		}
		ms, err := p.Manifests(ctx)
		r.mu.Lock()
		if err != nil {
			r.failed[p.Name()] = err
		} else {
			delete(r.failed, p.Name())
			r.learnt[p.Name()] = true
			for _, m := range ms {
				if err := r.cat.Add(p.Name(), m); err != nil {
					r.failed[p.Name()] = fmt.Errorf("plugin %s: %w", p.Name(), err)
				}
			}
		}
		r.mu.Unlock()
	}
}

func (r *pluginCatalog) plugin(e extension.Entry) *launcher.Plugin {
	p, _ := r.l.Plugin(e.Plugin)
	return p
}

// pluginCodecs resolves codec names in the catalog.
type pluginCodecs struct {
	r       *pluginCatalog
	bundled codec.Resolver
}

func (c pluginCodecs) Codec(ctx context.Context, name string, config json.RawMessage) (codec.Codec, error) {
	e, err := c.r.lookup(ctx, extension.Codec, name)
	if err != nil {
		return nil, err
	}
	if e.Bundled() {
		return c.bundled.Codec(ctx, name, config)
	}
	return c.r.plugin(e).Codec(ctx, name, config)
}
