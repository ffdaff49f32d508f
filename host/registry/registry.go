// Package registry resolves the names and spec URIs found in array
// metadata and configuration to extension implementations: codecs today,
// stores and storage transformers as they are added.
package registry

import (
	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/plugins/codecs/builtin"
)

// Codecs returns a resolver holding every bundled codec, running in process.
func Codecs() *codec.Registry {
	return codec.NewRegistry(builtin.Registrations()...)
}
