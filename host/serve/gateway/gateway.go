// Package gateway is zarrgw's HTTP server: every dataset of a
// configuration served by key (GET, HEAD, PUT, DELETE with byte ranges,
// ETags and conditional requests, as Zarr clients read over HTTP) and by
// array slice (streamed .npy, raw or JSON), with bearer-token access
// control per dataset, metrics, an access log and health endpoints.
//
// Every face (the gateway's own paths, the key and array APIs, the
// pages, the S3 API) is a table of one row type, route: the operation,
// the method and match, the access needed, the cost class and the
// handler. The middleware (pass) identifies the caller, applies the rate
// limits, checks the access and takes the cost's room from its budget
// from the row, before the handler runs.
//
// The gateway holds no state another replica could contradict: its
// caches trust an entry for a short TTL at most, writes carry the store's
// ETags, and replicas share nothing but the stores.
package gateway

import (
	"context"
	"errors"
	"fmt"
	"github.com/zarrgw/zarrgw/host/serve/identity"
	"go.opentelemetry.io/otel/trace"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/zarrgw/zarrgw/core/array"
	"github.com/zarrgw/zarrgw/core/hierarchy"
	"github.com/zarrgw/zarrgw/core/ndarray"
	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/host/runtime/config"
	"github.com/zarrgw/zarrgw/host/runtime/stack"
	"github.com/zarrgw/zarrgw/host/serve/gateway/cache"
	cachetransformer "github.com/zarrgw/zarrgw/plugins/transformers/cache"
)

// Options are a gateway's settings beyond its configuration.
type Options struct {
	// Logger receives the access log (one record per request) and
	// errors; slog.Default() when nil.
	Logger *slog.Logger
	// StoreHook, when set, runs around every store call, inside the
	// concurrency bound (to audit or trace calls).
	StoreHook store.Hook
	// AccessLog, when set, receives the access log records, one JSON line
	// a Write in the form of slog's JSON handler (Logger's level still
	// decides which are written); nil sends them through Logger. The
	// gateway writes them itself, faster than a slog handler formats them.
	AccessLog io.Writer
}

// Gateway serves the datasets of one configuration over HTTP.
type Gateway struct {
	cfg  *config.Config
	host *stack.Host
	log  *slog.Logger
	// accessLog is Options.AccessLog
	accessLog io.Writer
	ids       *identity.Directory
	limits    *identity.Limits
	metrics   *metrics
	budget    *budget // of expensive requests (pictures, slices)
	bodies    *budget // of memory held for request bodies
	ready     *readiness
	chunks    *cache.Cache[*ndarray.Array]
	started   time.Time
	// s3 is the S3 API, nil without an s3 block.
	s3 *s3API

	// draining is set when a shutdown begins (drain): /readyz fails from
	// then on; drainEnd is when the listeners stop taking connections.
	draining  atomic.Bool
	drainOnce sync.Once
	drainEnd  time.Time
	// hurry, closed by Hurry, ends a drain before drain_delay has passed.
	hurry     chan struct{}
	hurryOnce sync.Once

	mu       sync.RWMutex
	datasets map[string]*dataset
	names    []string // dataset names, sorted
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
	// created is when CreateBucket made the dataset, zero for the
	// datasets of the configuration.
	created time.Time
	// md5Versions: the store's versions are the MD5 of the bytes (S3's
	// ETags of single-part objects), so S3 clients may check them.
	md5Versions bool
	// consolidated holds metadata consolidated on the fly, when the
	// dataset asks for it.
	consolidated *consolidated
	// files: the store hands out values as open files (store.Optional.File),
	// sent with sendfile.
	files bool
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
		cfg: cfg, host: host, log: cfg.RedactLogger(opts.Logger), accessLog: opts.AccessLog,
		limits:   identity.NewLimits(cfg),
		hurry:    make(chan struct{}),
		datasets: map[string]*dataset{},
		metrics:  newMetrics(),
		budget:   newBudget(cfg.Server.Safeguards),
		bodies:   newBodyBudget(cfg.Server.Safeguards),
	}
	var err error
	if g.ids, err = identity.New(cfg, nil); err != nil {
		return nil, err
	}
	host.WrapStores(func(ref config.StoreRef, s store.Store) store.Store {
		limit := places(max(1, cfg.Server.StoreConcurrency)) // each store its own
		return store.WithHook(s, g.metrics.storeHook(ref.String(), limit, opts.StoreHook))
	})
	g.chunks = cache.New[*ndarray.Array](cfg.Server.ChunkCache, cfg.Server.CacheTTL)
	g.started = time.Now()
	for i := range cfg.Datasets {
		ds, err := g.open(ctx, &cfg.Datasets[i])
		if err != nil {
			return nil, err
		}
		g.add(ds)
	}
	g.ready = newReadiness(g)
	if cfg.Server.S3 != nil {
		if g.s3, err = newS3API(ctx, g, cfg.Server.S3); err != nil {
			return nil, err
		}
	}
	return g, nil
}

// places bounds the calls in flight to a store at n. Uploads streamed
// into it (set_stream) last as long as their clients take to send, so
// they have n places of their own: slow uploads never take the places
// reads and other writes need, nor the other way round.
func places(n int) store.Hook {
	calls, streams := store.Limit(n), store.Limit(n)
	return func(ctx context.Context, op, key string, call func(context.Context) error) error {
		if op == "set_stream" {
			return streams(ctx, op, key, call)
		}
		return calls(ctx, op, key, call)
	}
}

// open opens a declared dataset's stack behind the gateway's caches.
func (g *Gateway) open(ctx context.Context, dc *config.Dataset) (*dataset, error) {
	g.metrics.caches.drop(dc.Name) // a dataset opened again counts afresh
	ctx = cachetransformer.OnOpen(ctx, func(c *cachetransformer.Cache) { g.metrics.caches.add(dc.Name, c) })
	opened, err := g.host.Open(ctx, dc)
	if err != nil {
		return nil, err
	}
	cached, mc := withMetaCache(opened.Store, g.cfg.Server.MetadataCache, g.cfg.Server.CacheTTL, g.metrics.cache("metadata"))
	ds := &dataset{name: dc.Name, cfg: dc, store: cached, meta: mc, opts: g.host.ArrayOptions(),
		md5Versions: opened.Store.Capabilities().MD5Versions}
	ds.files = store.OptionalOf(cached).File
	if g.chunks.Enabled() {
		ds.chunks = &chunkCache{all: g.chunks, prefix: dc.Name + "\x00", count: g.metrics.cache("chunks")}
		ds.opts.Chunks = ds.chunks
	}
	if dc.Consolidated {
		ds.consolidated = newConsolidated(g.cfg.Server.CacheTTL)
	}
	return ds, nil
}

// add serves a dataset from now on.
func (g *Gateway) add(ds *dataset) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.datasets[ds.name] = ds
	g.names = append(g.names, ds.name)
	sort.Strings(g.names)
}

// remove stops serving a dataset.
func (g *Gateway) remove(name string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	delete(g.datasets, name)
	g.names = slices.DeleteFunc(g.names, func(n string) bool { return n == name })
	if g.chunks != nil {
		g.chunks.DropPrefix(name + "\x00")
	}
}

// dataset returns the dataset called name.
func (g *Gateway) dataset(name string) (*dataset, bool) {
	g.mu.RLock()
	defer g.mu.RUnlock()
	ds, ok := g.datasets[name]
	return ds, ok
}

// all returns every dataset, sorted by name.
func (g *Gateway) all() []*dataset {
	g.mu.RLock()
	defer g.mu.RUnlock()
	out := make([]*dataset, len(g.names))
	for i, n := range g.names {
		out[i] = g.datasets[n]
	}
	return out
}

// Close stops the gateway's background work (the S3 API's clean-up of
// abandoned multipart uploads).
func (g *Gateway) Close() {
	if g.s3 != nil {
		g.s3.close()
	}
}

// ServeHTTP routes a request, then logs and counts it.
func (g *Gateway) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rw, c := begin(w, r, g.cfg.Server)
	start := time.Now()
	defer g.done(rw, c.r, c.info, start)
	if g.cors(rw, c.r) {
		return
	}
	rt, _ := lookup(serviceRoutes, c)
	if rt == nil {
		writeText(rw, http.StatusNotFound, "not found: the API lives under /d/ (see /openapi.json)")
		return
	}
	if err := g.pass(c, bearer, rt); err != nil {
		g.failBearer(c, err)
	}
}

// requestInfo is what the access log says of a request beyond its line.
type requestInfo struct {
	op           string // the operation, from the route tables ("" before routing)
	dataset, key string
	caller       identity.Caller
	err          error
	body         *requestBody // nil without one
	span         trace.Span   // nil when traces are off
}

// writeText answers with a short plain-text reason.
func writeText(w http.ResponseWriter, status int, msg string) {
	w.Header().Del("Content-Length") // a value's, set before its first read failed: not this answer's
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
	msg := store.PublicText(err) // what a store withholds (a reference's target) stays in the log
	var re *requestError
	switch {
	case errors.Is(err, hierarchy.ErrNoNode):
		msg = "not found: no array or group at " + info.key
	case status == http.StatusNotFound && !errors.As(err, &re):
		// a store's error names its type and root: the log has it
		msg = "not found: " + info.key
	case status == http.StatusPreconditionFailed && !errors.As(err, &re):
		// the store refused a conditional write: said without its words
		msg = "precondition failed: the store holds another version of " + info.key + " (If-Match), or holds it already (If-None-Match: *)"
	case status >= 500:
		msg = http.StatusText(status) + ": " + msg
	}
	writeText(w, status, g.cfg.Redact(msg))
}
