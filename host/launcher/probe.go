package launcher

import (
	"context"
	"errors"
	"fmt"

	"github.com/zarrgw/zarrgw/core/array"
	"github.com/zarrgw/zarrgw/core/extension"
	"github.com/zarrgw/zarrgw/core/meta"
	"github.com/zarrgw/zarrgw/core/store"
)

// Probe starts the plugin spec describes, asks what it serves and ends it:
// what configuration loading needs to check names and schemas against.
func Probe(ctx context.Context, spec Spec, opts Options) ([]extension.Manifest, error) {
	l := New(opts)
	defer l.Close()
	spec.Manifests = nil
	p, err := l.Add(spec)
	if err != nil {
		return nil, err
	}
	return p.Manifests(ctx)
}

// Transformers returns an array.TransformerResolver for the storage
// transformers named in array metadata: fallback (the in-process ones, or
// nil) first, then the plugins whose manifests list the name. The plugin
// gets the metadata's configuration and reaches the array's store through
// the host.
func (l *Launcher) Transformers(fallback array.TransformerResolver) array.TransformerResolver {
	return transformers{l: l, fallback: fallback}
}

type transformers struct {
	l        *Launcher
	fallback array.TransformerResolver
}

func (t transformers) Transformer(ctx context.Context, ext meta.Extension, next store.Store, a *meta.ArrayMeta, path string) (store.Store, error) {
	var errs []error
	if t.fallback != nil {
		s, err := t.fallback.Transformer(ctx, ext, next, a, path)
		if err == nil {
			return s, nil
		}
		errs = append(errs, err)
	}
	for _, p := range t.l.Plugins() {
		ms, err := p.Manifests(ctx)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if Serves(ms, extension.Transformer, ext.Name) {
			return p.Transformer(ctx, ext.Name, ext.Configuration, next)
		}
	}
	return nil, errors.Join(append([]error{fmt.Errorf("storage transformer not available: %s", ext.Name)}, errs...)...)
}
