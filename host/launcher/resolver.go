package launcher

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/extension"
	"github.com/zarrgw/zarrgw/pluginapi"
)

// Codecs returns a codec.Resolver for names found in metadata: fallback
// (the in-process registry, or nil) first, so a plugin can never change
// how a bundled codec decodes; then the plugins whose manifests list the
// name. Learning a plugin's manifests starts it, unless its Spec lists them.
func (l *Launcher) Codecs(fallback codec.Resolver) codec.Resolver {
	return &resolver{l: l, fallback: fallback, byName: map[string]*Plugin{}}
}

type resolver struct {
	l        *Launcher
	fallback codec.Resolver
	mu       sync.Mutex
	byName   map[string]*Plugin
}

func (r *resolver) Codec(name string, config json.RawMessage) (codec.Codec, error) {
	if r.fallback != nil {
		c, err := r.fallback.Codec(name, config)
		if !errors.Is(err, codec.ErrUnavailable) {
			return c, err
		}
	}
	timeout := r.l.opts.CallTimeout
	if timeout <= 0 {
		timeout = pluginapi.DefaultTimeout
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	p, err := r.find(ctx, name)
	if err != nil {
		return nil, err
	}
	return p.Codec(ctx, name, config)
}

// find returns the plugin serving codec name. Plugins that cannot say what
// they serve are reported along with the name, since one of them may be
// the one that serves it.
func (r *resolver) find(ctx context.Context, name string) (*Plugin, error) {
	r.mu.Lock()
	p, ok := r.byName[name]
	r.mu.Unlock()
	if ok {
		return p, nil
	}
	var errs []error
	for _, p := range r.l.Plugins() {
		ms, err := p.Manifests(ctx)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if Serves(ms, extension.Codec, name) {
			r.mu.Lock()
			r.byName[name] = p
			r.mu.Unlock()
			return p, nil
		}
	}
	return nil, errors.Join(append([]error{fmt.Errorf("%w: %s", codec.ErrUnavailable, name)}, errs...)...)
}

// Serves reports whether one of ms is of kind and answers to name.
func Serves(ms []extension.Manifest, kind extension.Kind, name string) bool {
	for _, m := range ms {
		if m.Kind != kind {
			continue
		}
		for _, n := range m.Names() {
			if n == name {
				return true
			}
		}
	}
	return false
}
