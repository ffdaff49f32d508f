// Package transformer describes storage transformers to registries: a
// storage transformer is a store over the next store of a stack, built by
// name from its configuration like codecs and stores are.
package transformer

import (
	"context"
	"encoding/json"

	"github.com/zarrgw/zarrgw/core/extension"
	"github.com/zarrgw/zarrgw/core/meta"
	"github.com/zarrgw/zarrgw/core/store"
)

// Factory builds a storage transformer over next from its configuration.
// The transformer owns next from then on (its Close closes next).
type Factory func(ctx context.Context, configuration json.RawMessage, next store.Store) (store.Store, error)

// Registration is one storage transformer implementation, registered the
// way codecs and stores are: its manifest and its constructor.
type Registration struct {
	Manifest extension.Manifest
	New      Factory
	// ForArray completes a configuration found in array metadata with what
	// the transformer needs to know of the array (the sharding transformer:
	// its chunk key layout), so that one configuration builds it in process
	// and in a plugin, which never sees the metadata. nil passes the
	// metadata's configuration on as it is.
	ForArray func(configuration json.RawMessage, a *meta.ArrayMeta, path string) (json.RawMessage, error)
	// Check, when set, judges a configuration and the transformer's place
	// over next as New would, without what New does outside the process
	// (files, locks, connections): a check of the configuration ("zarrgw
	// validate") runs it, New runs it too. A transformer whose New does
	// nothing outside the process needs none: a check builds it.
	Check func(ctx context.Context, configuration json.RawMessage, next store.Store) error
}
