// Package registry holds the extensions of one zarrgw binary (every
// bundled codec, store type and storage transformer, as plugins/builtin
// lists them) and opens them by name, in process or each in a plugin
// process of its own ("zarrgw plugin serve NAME"). Their manifests start
// the catalog (extension.Catalog) in which every name is resolved; a
// configuration's plugins add theirs, and win over a bundled extension of
// the same name.
package registry

import (
	"github.com/zarrgw/zarrgw/core/array"
	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/extension"
	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/core/transformer"
	"github.com/zarrgw/zarrgw/plugins/builtin"
)

// Set is the extensions a binary bundles. Everything the host does with an
// extension (open it, serve it, check its configuration, list it, open its
// LOCATION URLs) it does through a Set, so an extension added to the set
// is known everywhere.
type Set struct {
	Codecs       []codec.Registration
	Stores       []store.Registration
	Transformers []transformer.Registration
}

// Bundled is the set plugins/builtin lists.
func Bundled() Set {
	return Set{Codecs: builtin.Codecs(), Stores: builtin.Stores(), Transformers: builtin.Transformers()}
}

// Manifests returns the manifest of every extension of the set.
func (s Set) Manifests() []extension.Manifest {
	var out []extension.Manifest
	for _, r := range s.Codecs {
		out = append(out, r.Manifest)
	}
	for _, r := range s.Stores {
		out = append(out, r.Manifest)
	}
	for _, r := range s.Transformers {
		out = append(out, r.Manifest)
	}
	return out
}

// Catalog returns a catalog of the set's manifests, to which a
// configuration's plugins add theirs. It panics if two extensions of the
// set claim one name: the set is fixed when the binary is built.
func (s Set) Catalog() *extension.Catalog { return extension.NewCatalog(s.Manifests()...) }

// CodecRegistry returns a registry of the set's codecs, in process.
func (s Set) CodecRegistry() *codec.Registry { return codec.NewRegistry(s.Codecs...) }

// store returns the store type name (or an alias) denotes.
func (s Set) store(name string) (store.Registration, bool) {
	for _, r := range s.Stores {
		if r.Manifest.AnswersTo(name) {
			return r, true
		}
	}
	return store.Registration{}, false
}

// transformer returns the storage transformer name (or a URI) denotes.
func (s Set) transformer(name string) (transformer.Registration, bool) {
	for _, r := range s.Transformers {
		if r.Manifest.AnswersTo(name) {
			return r, true
		}
	}
	return transformer.Registration{}, false
}

// Codecs returns a resolver of every bundled codec, in process.
func Codecs() *codec.Registry { return Bundled().CodecRegistry() }

// Transformers returns a resolver of the bundled storage transformers
// named in array metadata, in process.
func Transformers() array.TransformerResolver { return Bundled().InProcess().Transformers() }
