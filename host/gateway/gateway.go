// Package gateway is zarrgw's HTTP server: every dataset of a
// configuration served by key (GET, HEAD, PUT, DELETE with byte ranges,
// ETags and conditional requests, as Zarr clients read over HTTP) and by
// array slice (streamed .npy, raw or JSON), with bearer-token access
// control per dataset, metrics, an access log and health endpoints.
//
// The gateway holds no state another replica could contradict: its
// caches trust an entry for a short TTL at most, writes carry the store's
// ETags, and replicas share nothing but the stores.
package gateway

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"sort"
	"strings"
	"time"

	"github.com/zarrgw/zarrgw/core/array"
	"github.com/zarrgw/zarrgw/core/ndarray"
	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/host/cache"
	"github.com/zarrgw/zarrgw/host/config"
	"github.com/zarrgw/zarrgw/host/stack"
)

// Options are a gateway's settings beyond its configuration.
type Options struct {
	// Logger receives the access log (one record per request) and
	// errors; slog.Default() when nil.
	Logger *slog.Logger
	// StoreHook, when set, runs around every store call, inside the
	// concurrency bound (to audit or trace calls).
	StoreHook store.Hook
}

// Gateway serves the datasets of one configuration over HTTP.
type Gateway struct {
	cfg        *config.Config
	host       *stack.Host
	log        *slog.Logger
	principals principals
	datasets   map[string]*dataset
	names      []string // dataset names, sorted
	metrics    *metrics
	ready      *readiness
}

// dataset is a served dataset: its stack, behind the metadata cache.
type dataset struct {
	name  string
	cfg   *config.Dataset
	store store.Store
	meta  *metaCache
	opts  array.Options
	// chunks is the dataset's part of the decoded-chunk cache, nil when
	// the cache is off.
	chunks *chunkCache
	// consolidated holds metadata consolidated on the fly, when the
	// dataset asks for it.
	consolidated *consolidated
}

// New opens every dataset of cfg through host (plugins start when first
// needed) and returns the gateway. Stores are wrapped so that at most
// server.store_concurrency calls run on each at once, and every call is
// measured.
func New(ctx context.Context, cfg *config.Config, host *stack.Host, opts Options) (*Gateway, error) {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	g := &Gateway{
		cfg: cfg, host: host, log: opts.Logger,
		principals: principals{list: cfg.Principals},
		datasets:   map[string]*dataset{},
		metrics:    newMetrics(),
	}
	limit := store.Limit(cfg.Server.StoreConcurrency)
	host.WrapStores(func(ref config.StoreRef, s store.Store) store.Store {
		hooks := []store.Hook{g.metrics.storeHook(ref.String()), limit}
		if opts.StoreHook != nil {
			hooks = append(hooks, opts.StoreHook)
		}
		return store.WithHook(s, chainHooks(hooks...))
	})
	chunks := cache.New[*ndarray.Array](cfg.Server.ChunkCache, cfg.Server.CacheTTL)
	for i := range cfg.Datasets {
		dc := &cfg.Datasets[i]
		opened, err := host.Dataset(ctx, dc.Name)
		if err != nil {
			return nil, err
		}
		mc := newMetaCache(opened.Store, cfg.Server.MetadataCache, cfg.Server.CacheTTL, g.metrics.cache("metadata"))
		ds := &dataset{name: dc.Name, cfg: dc, store: mc, meta: mc, opts: host.ArrayOptions()}
		if chunks.Enabled() {
			ds.chunks = &chunkCache{all: chunks, prefix: dc.Name + "\x00", count: g.metrics.cache("chunks")}
			ds.opts.Chunks = ds.chunks
		}
		if dc.Consolidated {
			ds.consolidated = newConsolidated(cfg.Server.CacheTTL)
		}
		g.datasets[dc.Name] = ds
		g.names = append(g.names, dc.Name)
	}
	sort.Strings(g.names)
	g.ready = newReadiness(g)
	return g, nil
}

// chainHooks runs hooks outermost first.
func chainHooks(hooks ...store.Hook) store.Hook {
	return func(ctx context.Context, op, key string, call func(context.Context) error) error {
		next := call
		for i := len(hooks) - 1; i >= 0; i-- {
			h, inner := hooks[i], next
			next = func(ctx context.Context) error { return h(ctx, op, key, inner) }
		}
		return next(ctx)
	}
}

// ServeHTTP routes a request, then logs and counts it.
func (g *Gateway) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rw := &response{ResponseWriter: w, status: http.StatusOK}
	info := &requestInfo{}
	start := time.Now()
	defer func() { g.finish(rw, r, info, time.Since(start)) }()
	if g.cors(rw, r) {
		return
	}
	path := r.URL.Path
	switch {
	case path == "/healthz":
		writeText(rw, http.StatusOK, "ok")
	case path == "/readyz":
		g.ready.serve(rw, r)
	case path == "/metrics":
		g.metrics.handler().ServeHTTP(rw, r)
	case path == "/openapi.json":
		serveOpenAPI(rw, r)
	case path == "/" || path == "/ui" || strings.HasPrefix(path, "/ui/"):
		if path == "/" {
			http.Redirect(rw, r, "/ui/", http.StatusFound)
			return
		}
		g.servePages(rw, r, info)
	case (path == "/d" || path == "/d/") && wantsHTML(r):
		http.Redirect(rw, r, "/ui/", http.StatusSeeOther)
	case path == "/d" || path == "/d/":
		g.serveDatasetList(rw, r, info)
	case strings.HasPrefix(path, "/d/"):
		g.serveDataset(rw, r, info)
	default:
		writeText(rw, http.StatusNotFound, "not found: the API lives under /d/ (see /openapi.json)")
	}
}

// requestInfo is what the access log says of a request beyond its line.
type requestInfo struct {
	dataset, key, principal string
	err                     error
}

// writeText answers with a short plain-text reason.
func writeText(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	fmt.Fprintln(w, msg)
}

// fail answers with err's status and reason; a backend failure's detail
// goes to the log, and the client gets the reason without store internals.
func (g *Gateway) fail(w http.ResponseWriter, info *requestInfo, err error) {
	info.err = err
	status := statusOf(err)
	msg := err.Error()
	if status >= 500 {
		msg = http.StatusText(status) + ": " + msg
	}
	writeText(w, status, msg)
}
