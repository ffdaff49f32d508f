package registry

import (
	"encoding/json"
	"fmt"

	"github.com/zarrgw/zarrgw/core/extension"
	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/plugins/stores/fs"
	shardtransformer "github.com/zarrgw/zarrgw/plugins/transformers/sharding"
)

// OpenStore opens a bundled store type in process with its configuration
// (already checked against the type's schema by configuration loading).
// Types that are declared but not yet built into this binary say so.
func OpenStore(name string, config json.RawMessage) (store.Store, error) {
	m, ok := Bundled().Manifest(extension.Store, name)
	if !ok {
		return nil, fmt.Errorf("store type %q is not bundled", name)
	}
	if m.Name != fs.Name {
		return nil, fmt.Errorf("store type %q is not available in this build of zarrgw yet", m.Name)
	}
	return openFS(config)
}

// NewTransformer builds a bundled storage transformer of a dataset's stack
// over next. A dataset holds many arrays, so the sharding transformer,
// unless its configuration gives a layout, translates the chunk keys of
// every array below the dataset whose keys use the default "/" encoding
// and whose rank is that of chunks_per_shard; other keys pass through.
func NewTransformer(name string, config json.RawMessage, next store.Store) (store.Store, error) {
	if !shardtransformer.Handles(name) {
		return nil, fmt.Errorf("storage transformer %q is not bundled", name)
	}
	var c shardingConfig
	if err := strictJSON(config, &c); err != nil {
		return nil, fmt.Errorf("%s: configuration: %w", shardtransformer.Name, err)
	}
	if c.Layout == nil {
		c.Layout = &shardingLayout{AnyDepth: true, Encoding: "default", Separator: "/"}
		var err error
		if config, err = json.Marshal(c); err != nil {
			return nil, err
		}
	}
	return newSharding(config, next)
}
