package gateway

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/zarrgw/zarrgw/core/store"
)

// metrics are the gateway's Prometheus series, in a registry of its own
// (so two gateways in one process do not collide).
type metrics struct {
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
	caches *storeCaches
	// authFailures counts failed authentications by reason; limitedReqs
	// the requests refused by a rate limit, by whose limit.
	authFailures *prometheus.CounterVec
	limitedReqs  *prometheus.CounterVec
}

func newMetrics() *metrics {
	m := &metrics{
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
	m.caches = &storeCaches{}
	m.authFailures = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "zarrgw_auth_failures_total",
		Help: "Failed authentications by reason (unknown_token, expired, signature, audience, issuer, unknown_key, session_expired, ...)."}, []string{"reason"})
	m.limitedReqs = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "zarrgw_rate_limited_total",
		Help: "Requests refused by a rate limit, by the principal whose limit refused them (\"anonymous\" for client addresses)."}, []string{"limiter"})
	m.reg.MustRegister(m.authFailures, m.limitedReqs)
	m.reg.MustRegister(m.requests, m.latency, m.bytesIn, m.bytesOut, m.storeCall, m.storeErr, m.hits, m.misses, m.caches,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

func (m *metrics) handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
}

func (m *metrics) request(dataset, op, method string, status int, in, out int64, took time.Duration) {
	method = methodLabel(method)
	m.requests.WithLabelValues(dataset, op, method, statusLabel(status)).Inc()
	m.latency.WithLabelValues(dataset, op, method).Observe(took.Seconds())
	if in > 0 {
		m.bytesIn.WithLabelValues(dataset).Add(float64(in))
	}
	m.bytesOut.WithLabelValues(dataset).Add(float64(out))
}

// storeHook times the calls of one store.
func (m *metrics) storeHook(name string) store.Hook {
	return func(ctx context.Context, op, _ string, call func(context.Context) error) error {
		start := time.Now()
		err := call(ctx)
		m.storeCall.WithLabelValues(name, op).Observe(time.Since(start).Seconds())
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			m.storeErr.WithLabelValues(name, op).Inc()
		}
		return err
	}
}

// cacheCounters counts one cache's hits and misses.
type cacheCounters struct{ hit, miss prometheus.Counter }

func (m *metrics) cache(name string) cacheCounters {
	return cacheCounters{hit: m.hits.WithLabelValues(name), miss: m.misses.WithLabelValues(name)}
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

// authFailure counts a failed authentication.
func (m *metrics) authFailure(reason string) { m.authFailures.WithLabelValues(reason).Inc() }

// limited counts a request refused by limiter's rate limit.
func (m *metrics) limited(limiter string) { m.limitedReqs.WithLabelValues(limiter).Inc() }
