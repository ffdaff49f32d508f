// Package registry resolves the names and spec URIs found in array
// metadata and configuration to extension implementations: codecs today,
// stores and storage transformers as they are added.
package registry

import (
	"github.com/zarrgw/zarrgw/core/array"
	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/plugins/codecs/builtin"
	shardtransformer "github.com/zarrgw/zarrgw/plugins/transformers/sharding"
)

// Codecs returns a resolver holding every bundled codec, running in process.
func Codecs() *codec.Registry {
	return codec.NewRegistry(builtin.Registrations()...)
}

// Transformers returns a resolver for the storage transformers named in
// array metadata (the sharding transformer, under its name and spec URIs).
func Transformers() array.TransformerResolver {
	return shardtransformer.Resolver{}
}
