package http

import (
	"context"
	"encoding/json"

	"github.com/zarrgw/zarrgw/core/store"
)

// FromURL opens the store a LOCATION URL names, with everything else from
// the conventional environment.
func FromURL(ctx context.Context, loc string) (*Store, error) {
	cfg, err := ConfigFromURL(loc)
	if err != nil {
		return nil, err
	}
	return New(ctx, cfg)
}

// Open opens the store a JSON configuration (see Schema) describes: the
// shape a registry calls.
func Open(ctx context.Context, config json.RawMessage) (store.Store, error) {
	cfg, err := ParseConfig(config)
	if err != nil {
		return nil, err
	}
	return New(ctx, cfg)
}
