package gateway_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// Without a metrics block, /metrics answers clients on this machine only.
func TestMetricsLoopbackByDefault(t *testing.T) {
	tg := newTestGateway(t)
	for addr, want := range map[string]int{"127.0.0.1:4000": 200, "[::1]:4000": 200, "203.0.113.5:4000": 403, "10.0.0.2:4000": 403} {
		r := httptest.NewRequest(http.MethodGet, "/metrics", nil)
		r.RemoteAddr = addr
		w := httptest.NewRecorder()
		tg.Config.Handler.ServeHTTP(w, r)
		if w.Code != want || want == 200 && !strings.Contains(w.Body.String(), "# HELP zarrgw_") {
			t.Errorf("/metrics from %s: %d, want %d", addr, w.Code, want)
		}
	}
}

// With metrics { read = [...] }, the principals listed read /metrics,
// from anywhere; others are refused, anonymous callers asked for a token.
func TestMetricsAccessList(t *testing.T) {
	src := strings.Replace(testConfig, `  cache_ttl        = "1h"`, `  cache_ttl        = "1h"
  metrics {
    read = ["reader"]
  }`, 1)
	tg := newGatewayOf(t, src)
	for token, want := range map[string]int{"": 401, readerToken: 200, writerToken: 403, "bogus": 401} {
		r := httptest.NewRequest(http.MethodGet, "/metrics", nil)
		r.RemoteAddr = "203.0.113.5:4000"
		if token != "" {
			r.Header.Set("Authorization", "Bearer "+token)
		}
		w := httptest.NewRecorder()
		tg.Config.Handler.ServeHTTP(w, r)
		if w.Code != want {
			t.Errorf("/metrics with token %q: %d, want %d", token, w.Code, want)
		}
	}
}
