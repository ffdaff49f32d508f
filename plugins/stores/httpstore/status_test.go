package httpstore

import (
	"errors"
	nethttp "net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/plugins/stores/internal/schematest"
	"github.com/zarrgw/zarrgw/tests/support/servers"
)

// statusServer answers every request with code, counting them.
func statusServer(t *testing.T, code int) (*httptest.Server, *atomic.Int64) {
	var n atomic.Int64
	srv := httptest.NewServer(nethttp.HandlerFunc(func(w nethttp.ResponseWriter, _ *nethttp.Request) {
		n.Add(1)
		w.WriteHeader(code)
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

// Every status but 200, 206, 404 and 416 is an error naming the URL and
// the status; server errors are retried, client errors are not; 401 and
// 403 are access errors; none is ErrNotFound.
func TestStatuses(t *testing.T) {
	for _, c := range []struct {
		code     int
		attempts int64
		access   bool
	}{
		{500, 3, false}, {503, 3, false}, {429, 3, false},
		{400, 1, false}, {410, 1, false}, {401, 1, true}, {403, 1, true}, {501, 1, false},
	} {
		srv, n := statusServer(t, c.code)
		s, err := New(t.Context(), Config{URL: srv.URL + "/data?sig=SECRET", MaxAttempts: 3})
		if err != nil {
			t.Fatal(err)
		}
		_, err = s.Get(t.Context(), "a/b c", store.Range(0, 4))
		switch {
		case err == nil || errors.Is(err, store.ErrNotFound):
			t.Fatalf("status %d: %v, want an error other than ErrNotFound", c.code, err)
		case errors.Is(err, store.ErrAccessDenied) != c.access:
			t.Fatalf("status %d: %v, access error %v", c.code, err, !c.access)
		case !strings.Contains(err.Error(), srv.URL+"/data/a/b%20c") || !strings.Contains(err.Error(), nethttp.StatusText(c.code)):
			t.Fatalf("status %d: error does not name the URL and the status: %v", c.code, err)
		case strings.Contains(err.Error(), "SECRET"):
			t.Fatalf("status %d: error quotes the URL's query: %v", c.code, err)
		case n.Load() != c.attempts:
			t.Fatalf("status %d: %d requests, want %d", c.code, n.Load(), c.attempts)
		}
	}
}

// A wrong or missing bearer token is an access error that does not quote
// the token.
func TestWrongToken(t *testing.T) {
	dir := t.TempDir()
	srv := servers.ServeDir(t, dir, servers.HTTPOptions{BearerToken: "right-token"})
	for _, token := range []string{"", "wrong-token"} {
		s, err := New(t.Context(), Config{URL: srv.URL, BearerToken: token})
		if err != nil {
			t.Fatal(err)
		}
		_, err = s.Stat(t.Context(), "k")
		if !errors.Is(err, store.ErrAccessDenied) || errors.Is(err, store.ErrNotFound) {
			t.Fatalf("token %q: %v, want an access error", token, err)
		}
		if token != "" && strings.Contains(err.Error(), token) {
			t.Fatalf("error quotes the token: %v", err)
		}
	}
}

// Bad base URLs are refused with the reason, without their secrets.
func TestBadURLs(t *testing.T) {
	for _, u := range []string{"", "ftp://host/x", "host/x", "http://user:pw@host/x"} {
		_, err := New(t.Context(), Config{URL: u})
		if err == nil || strings.Contains(err.Error(), "pw@") {
			t.Fatalf("New(%q): %v", u, err)
		}
	}
}

func TestSchema(t *testing.T) {
	schematest.Check(t, Schema, Config{}, "bearer_token")
}
