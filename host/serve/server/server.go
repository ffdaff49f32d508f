// Package server is the serving core of zarrgw's gateway: the datasets
// of a configuration opened behind the gateway's caches, the one route
// row type every face's table is made of (Route: the operation, the
// method and match, the access needed, the cost class and the handler),
// the middleware (Server.Pass) that identifies the caller, applies the
// rate limits, checks the access and takes the cost's room from its
// budget before the handler runs, errors and how they are written, the
// access log, the metrics, and the reading and writing of stored values
// that the key API and the S3 API share.
//
// The faces (host/serve/keyapi, s3api, pages) import this package and
// never one another; host/serve/gateway assembles them.
//
// The gateway holds no state another replica could contradict: its
// caches trust an entry for a short TTL at most, writes carry the store's
// ETags, and replicas share nothing but the stores.
package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/zarrgw/zarrgw/host/serve/identity"
	"go.opentelemetry.io/otel/trace"

	"github.com/zarrgw/zarrgw/core/array"
	"github.com/zarrgw/zarrgw/core/hierarchy"
	"github.com/zarrgw/zarrgw/core/ndarray"
	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/host/runtime/config"
	"github.com/zarrgw/zarrgw/host/runtime/stack"
	"github.com/zarrgw/zarrgw/host/serve/server/arraycache"
	"github.com/zarrgw/zarrgw/host/serve/server/cache"
	"github.com/zarrgw/zarrgw/host/serve/server/metrics"
	"github.com/zarrgw/zarrgw/host/serve/server/storecache"
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

// Server serves the datasets of one configuration over HTTP, through
// the route tables mounted on it.
type Server struct {
	Cfg  *config.Config
	host *stack.Host
	Log  *slog.Logger // redacted (config.RedactLogger)
	// accessLog is Options.AccessLog
	accessLog io.Writer
	IDs       *identity.Directory // the principals and identity providers
	limits    *identity.Limits
	Metrics   *metrics.Metrics
	// ExpensiveBudget is the budget of expensive requests (pictures,
	// slices), BodyBudget that of memory held for request bodies.
	ExpensiveBudget, BodyBudget *Budget
	Ready                       *Readiness // answers /readyz
	chunks                      *cache.Cache[*ndarray.Array]
	Started                     time.Time // when the server began: the configured buckets' creation date
	// MayCreate checks the right to make datasets (AccessCreate): the S3
	// face's CreateBucket sets it; nil refuses every caller.
	MayCreate func(identity.Caller) error
	// routes are the gateway's own paths and the mounts of its faces
	// (see Mount).
	routes []Route

	// Draining is set when a shutdown begins: /readyz fails from then on.
	Draining atomic.Bool

	mu       sync.RWMutex
	datasets map[string]*Dataset
	names    []string // dataset names, sorted
}

// Dataset is a served dataset: its stack, behind the metadata cache.
type Dataset struct {
	Name  string
	Cfg   *config.Dataset
	Store store.Store
	meta  *storecache.MetaCache
	Opts  array.Options
	// chunks is the dataset's part of the decoded-chunk cache, nil when
	// the cache is off.
	chunks *storecache.ChunkCache
	// Created is when CreateBucket made the dataset, zero for the
	// datasets of the configuration.
	Created time.Time
	// md5Versions: the store's versions are the MD5 of the bytes (S3's
	// ETags of single-part objects), so S3 clients may check them.
	md5Versions bool
	// consolidated holds metadata consolidated on the fly, when the
	// dataset asks for it.
	consolidated *consolidated
	// Files: the store hands out values as open files (store.Optional.File),
	// sent with sendfile.
	Files bool
	// arrays keeps the arrays opened for requests (see OpenArray).
	arrays *arraycache.Cache
}

// New opens every dataset of cfg through host (plugins start when first
// needed) and returns the gateway. Stores are wrapped so that at most
// server.store_concurrency calls run on each at once, and every call is
// measured.
func New(ctx context.Context, cfg *config.Config, host *stack.Host, opts Options) (*Server, error) {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	g := &Server{
		Cfg: cfg, host: host, Log: cfg.RedactLogger(opts.Logger), accessLog: opts.AccessLog,
		limits:          identity.NewLimits(cfg),
		datasets:        map[string]*Dataset{},
		Metrics:         metrics.New(),
		ExpensiveBudget: NewBudget(cfg.Server.Safeguards),
		BodyBudget:      newBodyBudget(cfg.Server.Safeguards),
	}
	var err error
	if g.IDs, err = identity.New(cfg, nil); err != nil {
		return nil, err
	}
	host.WrapStores(func(ref config.StoreRef, s store.Store) store.Store {
		limit := places(max(1, cfg.Server.StoreConcurrency)) // each store its own
		return store.WithHook(s, g.Metrics.StoreHook(ref.String(), limit, opts.StoreHook))
	})
	g.chunks = cache.New[*ndarray.Array](cfg.Server.ChunkCache, cfg.Server.CacheTTL)
	g.Started = time.Now()
	for i := range cfg.Datasets {
		ds, err := g.Open(ctx, &cfg.Datasets[i])
		if err != nil {
			return nil, err
		}
		g.Add(ds)
	}
	g.Ready = newReadiness(g)
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

// Open opens a declared dataset's stack behind the gateway's caches.
func (g *Server) Open(ctx context.Context, dc *config.Dataset) (*Dataset, error) {
	g.Metrics.Caches.Drop(dc.Name) // a dataset opened again counts afresh
	ctx = cachetransformer.OnOpen(ctx, func(c *cachetransformer.Cache) { g.Metrics.Caches.Add(dc.Name, c) })
	opened, err := g.host.Open(ctx, dc)
	if err != nil {
		return nil, err
	}
	cached, mc := storecache.WithMetaCache(opened.Store, g.Cfg.Server.MetadataCache, g.Cfg.Server.CacheTTL, g.Metrics.Cache("metadata"))
	ds := &Dataset{Name: dc.Name, Cfg: dc, Store: cached, meta: mc, Opts: g.host.ArrayOptions(),
		md5Versions: opened.Store.Capabilities().MD5Versions}
	ds.Files = store.OptionalOf(cached).File
	if g.chunks.Enabled() {
		ds.chunks = &storecache.ChunkCache{All: g.chunks, Prefix: dc.Name + "\x00", Count: g.Metrics.Cache("chunks")}
		ds.Opts.Chunks = ds.chunks
	}
	if dc.Consolidated {
		ds.consolidated = newConsolidated(g.Cfg.Server.CacheTTL)
	}
	ds.arrays = arraycache.New(ds.Store, ds.Opts)
	return ds, nil
}

// Add serves a dataset from now on.
func (g *Server) Add(ds *Dataset) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.datasets[ds.Name] = ds
	g.names = append(g.names, ds.Name)
	sort.Strings(g.names)
}

// Remove stops serving a dataset.
func (g *Server) Remove(name string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	delete(g.datasets, name)
	g.names = slices.DeleteFunc(g.names, func(n string) bool { return n == name })
	if g.chunks != nil {
		g.chunks.DropPrefix(name + "\x00")
	}
}

// Dataset returns the dataset called name.
func (g *Server) Dataset(name string) (*Dataset, bool) {
	g.mu.RLock()
	defer g.mu.RUnlock()
	ds, ok := g.datasets[name]
	return ds, ok
}

// All returns every dataset, sorted by name.
func (g *Server) All() []*Dataset {
	g.mu.RLock()
	defer g.mu.RUnlock()
	out := make([]*Dataset, len(g.names))
	for i, n := range g.names {
		out[i] = g.datasets[n]
	}
	return out
}

// Mount sets the table of the gateway's own paths and of the mounts of
// its faces, which ServeHTTP routes by.
func (g *Server) Mount(rows []Route) { g.routes = rows }

// ServeHTTP routes a request, then logs and counts it.
func (g *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rw, c := Begin(w, r, g.Cfg.Server)
	start := time.Now()
	defer g.Done(rw, c.R, c.Info, start)
	if g.cors(rw, c.R) {
		return
	}
	rt, _ := Lookup(g.routes, c)
	if rt == nil {
		WriteText(rw, http.StatusNotFound, "not found: the API lives under /d/ (see /openapi.json)")
		return
	}
	if err := g.Pass(c, Bearer, rt); err != nil {
		g.FailBearer(c, err)
	}
}

// RequestInfo is what the access log says of a request beyond its line.
type RequestInfo struct {
	op           string // the operation, from the route tables ("" before routing)
	Dataset, Key string
	Caller       identity.Caller
	Err          error
	body         *requestBody // nil without one
	span         trace.Span   // nil when traces are off
}

// WriteText answers with a short plain-text reason.
func WriteText(w http.ResponseWriter, status int, msg string) {
	w.Header().Del("Content-Length") // a value's, set before its first read failed: not this answer's
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	fmt.Fprintln(w, msg)
}

// Fail answers with err's status and reason; a backend failure's detail
// goes to the log, and the client gets the reason without store internals.
func (g *Server) Fail(w http.ResponseWriter, info *RequestInfo, err error) {
	info.Err = err
	status := StatusOf(err)
	msg := store.PublicText(err) // what a store withholds (a reference's target) stays in the log
	var re *RequestError
	switch {
	case errors.Is(err, hierarchy.ErrNoNode):
		msg = "not found: no array or group at " + info.Key
	case status == http.StatusNotFound && !errors.As(err, &re):
		// a store's error names its type and root: the log has it
		msg = "not found: " + info.Key
	case status == http.StatusPreconditionFailed && !errors.As(err, &re):
		// the store refused a conditional write: said without its words
		msg = "precondition failed: the store holds another version of " + info.Key + " (If-Match), or holds it already (If-None-Match: *)"
	case status >= 500:
		msg = http.StatusText(status) + ": " + msg
	}
	WriteText(w, status, g.Cfg.Redact(msg))
}
