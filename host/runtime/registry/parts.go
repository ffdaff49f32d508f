package registry

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/zarrgw/zarrgw/core/array"
	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/meta"
	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/core/transformer"
)

// Parts opens the extensions of a set by name, wherever they run: in
// process (Set.InProcess), each in a plugin (Set.OutOfProcess), or with a
// configuration's plugins in front (WithPlugins). The engine cannot tell
// the difference.
type Parts struct {
	set    Set
	codecs codec.Resolver
	// openStore and newTransformer build by registered name.
	openStore      func(ctx context.Context, name string, config json.RawMessage) (store.Store, error)
	newTransformer func(ctx context.Context, name string, config json.RawMessage, next store.Store) (store.Store, error)
	// bundledTransformer returns the bundled registration a transformer
	// name resolves to; false when it resolves to a plugin's or to none.
	bundledTransformer func(ctx context.Context, name string) (transformer.Registration, bool)
}

// InProcess returns the set's extensions running in this process.
func (s Set) InProcess() *Parts {
	return &Parts{
		set:    s,
		codecs: s.CodecRegistry(),
		openStore: func(ctx context.Context, name string, config json.RawMessage) (store.Store, error) {
			r, ok := s.store(name)
			if !ok {
				return nil, fmt.Errorf("store type %q is not bundled", name)
			}
			return r.New(ctx, config)
		},
		newTransformer: func(ctx context.Context, name string, config json.RawMessage, next store.Store) (store.Store, error) {
			r, ok := s.transformer(name)
			if !ok {
				return nil, fmt.Errorf("storage transformer %q is not bundled", name)
			}
			return r.New(ctx, config, next)
		},
	}
}

// Set is the set the parts come from.
func (p *Parts) Set() Set { return p.set }

// Codecs resolves codec names from metadata and configuration.
func (p *Parts) Codecs() codec.Resolver { return p.codecs }

// OpenStore opens a store of the type name with its configuration.
// Stores that refer to others (references) reach them through the
// context's store.URLOpener: these parts, unless the caller gave another.
func (p *Parts) OpenStore(ctx context.Context, name string, config json.RawMessage) (store.Store, error) {
	if _, ok := store.URLOpenerFrom(ctx); !ok {
		ctx = store.WithURLOpener(ctx, p)
	}
	return p.openStore(ctx, name, config)
}

// NewTransformer builds the storage transformer name over next.
func (p *Parts) NewTransformer(ctx context.Context, name string, config json.RawMessage, next store.Store) (store.Store, error) {
	return p.newTransformer(ctx, name, config, next)
}

// CheckTransformer judges the bundled storage transformer name, with
// its configuration, over next as building it does, and returns the store
// the transformer above it is judged over: with the registration's Check
// when it has one (nothing is opened, next is returned), else by building
// it. A name that is not bundled (a plugin's, which only its own process
// can judge) is not judged: next is returned.
func (p *Parts) CheckTransformer(ctx context.Context, name string, config json.RawMessage, next store.Store) (store.Store, error) {
	r, ok := p.set.transformer(name)
	switch {
	case !ok:
		return next, nil
	case r.Check != nil:
		return next, r.Check(ctx, config, next)
	}
	return r.New(ctx, config, next)
}

// ArrayOptions resolves the codecs and storage transformers array
// metadata names.
func (p *Parts) ArrayOptions() array.Options {
	return array.Options{Codecs: p.Codecs(), Transformers: p.Transformers()}
}

func (p *Parts) bundled(ctx context.Context, name string) (transformer.Registration, bool) {
	if p.bundledTransformer != nil {
		return p.bundledTransformer(ctx, name)
	}
	return p.set.transformer(name)
}

// Transformers resolves the storage transformers named in array metadata.
func (p *Parts) Transformers() array.TransformerResolver { return metaTransformers{p} }

// metaTransformers builds a transformer named in array metadata from the
// metadata's configuration, completed by its registration's ForArray with
// what it must know of the array.
type metaTransformers struct{ p *Parts }

func (t metaTransformers) Transformer(ctx context.Context, ext meta.Extension, next store.Store, a *meta.ArrayMeta, path string) (store.Store, error) {
	name, config := ext.Name, ext.Configuration
	if r, ok := t.p.bundled(ctx, name); ok {
		name = r.Manifest.Name
		if r.ForArray != nil {
			var err error
			if config, err = r.ForArray(config, a, path); err != nil {
				return nil, err
			}
		}
	}
	return t.p.NewTransformer(ctx, name, config, next)
}
