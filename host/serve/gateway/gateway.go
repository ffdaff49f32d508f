// Package gateway is zarrgw's HTTP server assembled: the serving core
// (host/serve/server) with every face mounted on it (the key and array
// APIs, the pages, the S3 API with STS), and the listeners, their drain
// and shutdown. Every dataset of a configuration is served by key (GET,
// HEAD, PUT, DELETE with byte ranges, ETags and conditional requests, as
// Zarr clients read over HTTP), by array slice (streamed .npy, raw or
// JSON), as pages and pictures, and over S3.
package gateway

import (
	"context"
	"net/http"
	"sync"
	"time"

	"github.com/zarrgw/zarrgw/host/runtime/config"
	"github.com/zarrgw/zarrgw/host/runtime/stack"
	"github.com/zarrgw/zarrgw/host/serve/keyapi"
	"github.com/zarrgw/zarrgw/host/serve/pages"
	"github.com/zarrgw/zarrgw/host/serve/s3api"
	"github.com/zarrgw/zarrgw/host/serve/server"
)

// Options are a gateway's settings beyond its configuration.
type Options = server.Options

// Gateway serves the datasets of one configuration over HTTP: the
// serving core with the faces' tables mounted on it.
type Gateway struct {
	*server.Server
	// s3 is the S3 API, nil without an s3 block.
	s3 *s3api.API

	pages *pages.Pages
	keys  *keyapi.API

	// drainEnd is when the listeners stop taking connections.
	drainOnce sync.Once
	drainEnd  time.Time
	// hurry, closed by Hurry, ends a drain before drain_delay has passed.
	hurry     chan struct{}
	hurryOnce sync.Once
}

// New opens every dataset of cfg through host (plugins start when first
// needed) and returns the gateway with its faces mounted. Stores are
// wrapped so that at most server.store_concurrency calls run on each at
// once, and every call is measured.
func New(ctx context.Context, cfg *config.Config, host *stack.Host, opts Options) (*Gateway, error) {
	s, err := server.New(ctx, cfg, host, opts)
	if err != nil {
		return nil, err
	}
	g := &Gateway{Server: s, hurry: make(chan struct{})}
	g.pages = pages.New(s)
	g.keys = keyapi.New(s, keyapi.Pictures{Handle: g.pages.Picture, Cost: g.pages.PictureCost()})
	s.Mount(serviceRoutes(g))
	if cfg.Server.S3 != nil {
		if g.s3, err = s3api.New(ctx, g.Server, cfg.Server.S3); err != nil {
			return nil, err
		}
		s.MayCreate = g.s3.MayCreate
	}
	return g, nil
}

// Close stops the gateway's background work (the S3 API's clean-up of
// abandoned multipart uploads).
func (g *Gateway) Close() {
	if g.s3 != nil {
		g.s3.Close()
	}
}

// S3Handler answers the S3 API; nil when the configuration has no s3
// block.
func (g *Gateway) S3Handler() http.Handler {
	if g.s3 == nil {
		return nil
	}
	return g.s3
}
