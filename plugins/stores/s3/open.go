package s3

import (
	"context"
	"encoding/json"

	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/plugins/stores/internal/remote"
)

// FromURL opens the store a LOCATION URL names, with everything else from
// the conventional environment.
func FromURL(ctx context.Context, loc string) (*Store, error) {
	return remote.FromURL(ctx, loc, ConfigFromURL, New)
}

// Open opens the store a JSON configuration (see Schema) describes: the
// shape a registry calls.
func Open(ctx context.Context, config json.RawMessage) (store.Store, error) {
	return remote.Open(ctx, config, ParseConfig, New)
}
