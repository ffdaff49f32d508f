// Package metrics is the gateway's Prometheus metrics: requests by
// dataset, operation, method and status, store calls, caches, rate
// limits and authentication failures, served on /metrics by the serving
// core (host/serve/server).
package metrics

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/zarrgw/zarrgw/core/store"
)

// Metrics are the gateway's Prometheus series, in a registry of its own
// (so two gateways in one process do not collide).
type Metrics struct {
	reg       *prometheus.Registry
	requests  *prometheus.CounterVec
	latency   *prometheus.HistogramVec
	bytesIn   *prometheus.CounterVec
	bytesOut  *prometheus.CounterVec
	storeCall *prometheus.HistogramVec
	storeErr  *prometheus.CounterVec
	hits      *prometheus.CounterVec
	misses    *prometheus.CounterVec
	// caches are the cache transformers of the datasets' stacks
	Caches *StoreCaches
	// authFailures counts failed authentications by reason; limitedReqs
	// the requests refused by a rate limit, by whose limit.
	authFailures *prometheus.CounterVec
	limitedReqs  *prometheus.CounterVec
	// series are the request series bound so far, by requestKey.
	series sync.Map
	// fileResponses counts values sent from a store's file by the
	// kernel (sendfile), not read into memory first.
	FileResponses prometheus.Counter
	// aborted counts responses cut after their status was sent.
	aborted *prometheus.CounterVec
}

// New makes the metrics of one gateway, in a registry of their own.
func New() *Metrics {
	m := &Metrics{
		reg: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "zarrgw_http_requests_total",
			Help: "HTTP requests by dataset, operation, method and status."}, []string{"dataset", "operation", "method", "status"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "zarrgw_http_request_duration_seconds",
			Help: "Time to answer a request, body included.", Buckets: prometheus.ExponentialBuckets(0.0001, 4, 10)},
			[]string{"dataset", "operation", "method"}),
		bytesIn: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "zarrgw_http_request_bytes_total",
			Help: "Request body bytes received."}, []string{"dataset"}),
		bytesOut: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "zarrgw_http_response_bytes_total",
			Help: "Response body bytes sent."}, []string{"dataset"}),
		storeCall: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "zarrgw_store_call_duration_seconds",
			Help: "Store (and store plugin) call latency by store and operation.", Buckets: prometheus.ExponentialBuckets(0.00005, 4, 10)},
			[]string{"store", "op"}),
		storeErr: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "zarrgw_store_errors_total",
			Help: "Store calls that failed, other than for a missing key."}, []string{"store", "op"}),
		hits: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "zarrgw_cache_hits_total",
			Help: "Cache hits by cache."}, []string{"cache"}),
		misses: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "zarrgw_cache_misses_total",
			Help: "Cache misses by cache."}, []string{"cache"}),
	}
	m.Caches = &StoreCaches{}
	m.authFailures = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "zarrgw_auth_failures_total",
		Help: "Failed authentications by reason (unknown_token, expired, signature, audience, issuer, unknown_key, session_expired, ...)."}, []string{"reason"})
	m.limitedReqs = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "zarrgw_rate_limited_total",
		Help: "Requests refused by a rate limit, by the principal whose limit refused them (\"anonymous\" for client addresses)."}, []string{"limiter"})
	m.FileResponses = prometheus.NewCounter(prometheus.CounterOpts{Name: "zarrgw_file_responses_total",
		Help: "Values sent from a store's file by the kernel (sendfile) instead of read into memory first."})
	m.aborted = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "zarrgw_http_responses_aborted_total",
		Help: "Responses cut after their status was sent (a chunk that cannot be read mid-stream, a store failing mid-value): " +
			"the client saw a failed transfer. Counted in zarrgw_http_requests_total under the status sent."}, []string{"dataset", "operation"})
	m.reg.MustRegister(m.authFailures, m.limitedReqs, m.FileResponses, m.aborted)
	m.reg.MustRegister(m.requests, m.latency, m.bytesIn, m.bytesOut, m.storeCall, m.storeErr, m.hits, m.misses, m.Caches,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// Handler answers /metrics.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
}

// requestKey names the series one request counts in.
type requestKey struct {
	dataset, op, method string
	status              int
}

// requestSeries are a requestKey's series, bound once: a label lookup
// hashes every label value, and a small GET would do four.
type requestSeries struct {
	count             prometheus.Counter
	latency           prometheus.Observer
	bytesIn, bytesOut prometheus.Counter
}

// Request counts one request and its bytes and time.
func (m *Metrics) Request(dataset, op, method string, status int, in, out int64, took time.Duration) {
	k := requestKey{dataset, op, methodLabel(method), status}
	s, ok := m.series.Load(k)
	if !ok {
		s, _ = m.series.LoadOrStore(k, &requestSeries{
			count:    m.requests.WithLabelValues(dataset, op, k.method, strconv.Itoa(status)),
			latency:  m.latency.WithLabelValues(dataset, op, k.method),
			bytesIn:  m.bytesIn.WithLabelValues(dataset),
			bytesOut: m.bytesOut.WithLabelValues(dataset),
		})
	}
	rs := s.(*requestSeries)
	rs.count.Inc()
	rs.latency.Observe(took.Seconds())
	if in > 0 {
		rs.bytesIn.Add(float64(in))
	}
	rs.bytesOut.Add(float64(out))
}

// storeOps are the operations of store.Hook, bound to their metric
// series once per store rather than looked up per call.
var storeOps = []string{"get", "get_into", "stat", "set", "set_stream", "erase", "erase_many", "erase_prefix", "list", "list_dir"}

// storeHook runs around every call of one store: it waits for room under
// limit (server.store_concurrency, store.Limit), runs the call (through
// extra, a test's hook, when there is one) and times it, the wait
// included. One hook, not a chain: a small read makes no closures here.
func (m *Metrics) StoreHook(name string, limit, extra store.Hook) store.Hook {
	latency := make(map[string]prometheus.Observer, len(storeOps))
	failed := make(map[string]prometheus.Counter, len(storeOps))
	for _, op := range storeOps {
		latency[op] = m.storeCall.WithLabelValues(name, op)
		failed[op] = m.storeErr.WithLabelValues(name, op)
	}
	return func(ctx context.Context, op, key string, call func(context.Context) error) error {
		start := time.Now()
		inner := call
		if extra != nil {
			inner = func(ctx context.Context) error { return extra(ctx, op, key, call) }
		}
		err := limit(ctx, op, key, inner)
		if o, ok := latency[op]; ok {
			o.Observe(time.Since(start).Seconds())
		} else {
			m.storeCall.WithLabelValues(name, op).Observe(time.Since(start).Seconds())
		}
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			if c, ok := failed[op]; ok {
				c.Inc()
			} else {
				m.storeErr.WithLabelValues(name, op).Inc()
			}
		}
		return err
	}
}

// cacheCounters counts one cache's hits and misses.
type Counters struct{ Hit, Miss prometheus.Counter }

// Cache is the hit and miss counters of the cache called name.
func (m *Metrics) Cache(name string) Counters {
	return Counters{Hit: m.hits.WithLabelValues(name), Miss: m.misses.WithLabelValues(name)}
}

// methodLabel is a request's method as a metric label: the methods HTTP
// defines, and "other" for the rest (a client's made-up method would add
// a series per request).
func methodLabel(m string) string {
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodPut, http.MethodPost, http.MethodDelete,
		http.MethodOptions, http.MethodPatch, http.MethodConnect, http.MethodTrace:
		return m
	}
	return "other"
}

// AuthFailure counts a failed authentication.
func (m *Metrics) AuthFailure(reason string) { m.authFailures.WithLabelValues(reason).Inc() }

// abortedResponse counts a response cut after its status was sent.
func (m *Metrics) Aborted(dataset, op string) { m.aborted.WithLabelValues(dataset, op).Inc() }

// limited counts a request refused by limiter's rate limit.
func (m *Metrics) Limited(limiter string) { m.limitedReqs.WithLabelValues(limiter).Inc() }
