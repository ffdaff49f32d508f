package s3store

import (
	"context"
	"encoding/json"

	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/plugins/stores/internal/remote"
)

// Open opens the store a JSON configuration (see Schema) describes: the
// shape a registry calls.
func Open(ctx context.Context, config json.RawMessage) (store.Store, error) {
	return remote.Open(ctx, config, ParseConfig, New)
}
