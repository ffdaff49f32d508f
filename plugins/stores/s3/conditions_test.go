package s3

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"sync/atomic"
	"testing"

	"github.com/zarrgw/zarrgw/core/store"

	"github.com/zarrgw/zarrgw/core/store/storetest"
	"github.com/zarrgw/zarrgw/tests/support/servers"
)

// The preconditions decide racing creates: one wins with them, several
// without them.
func TestPreconditionsDecide(t *testing.T) {
	srv := servers.StartS3(t)
	unsafe := newTestStore(t, testConfig(t, srv))
	unsafe.dropConditions = true
	storetest.PreconditionsDecide(t, newTestStore(t, testConfig(t, srv)), unsafe)
}

// A conditional write whose answer is lost after S3 applied it, retried
// and then refused because of itself, is an unknown outcome, never a
// conflict: a conflict would tell a compare-and-swap writer its write
// failed when it took effect. A write refused without a lost attempt is
// still a conflict.
func TestConditionalWriteLostAnswerIsNotAConflict(t *testing.T) {
	srv := servers.StartS3(t)
	cfg := testConfig(t, srv)
	direct := newTestStore(t, cfg)
	v1, err := direct.Set(t.Context(), "k", []byte("one"), store.Condition{})
	if err != nil {
		t.Fatal(err)
	}
	// a proxy that sends the first conditional PUT on to S3, then cuts
	// the connection before its answer reaches the store
	target, _ := url.Parse(srv.Endpoint)
	proxy := httputil.NewSingleHostReverseProxy(target)
	var cut atomic.Bool
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPut && r.Header.Get("If-Match") != "" && cut.CompareAndSwap(false, true) {
			rec := httptest.NewRecorder()
			proxy.ServeHTTP(rec, r) // applied by S3
			conn, _, err := http.NewResponseController(w).Hijack()
			if err == nil {
				conn.Close() // its answer lost
			}
			return
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(front.Close)
	cfg.Endpoint = front.URL
	s := newTestStore(t, cfg)

	_, err = s.Set(t.Context(), "k", []byte("two"), store.Condition{IfMatch: v1})
	if err == nil || errors.Is(err, store.ErrConflict) {
		t.Fatalf("a conditional write whose answer was lost: %v, want an unknown outcome, not a conflict", err)
	}
	if !cut.Load() {
		t.Fatal("the proxy cut nothing: the test tested nothing")
	}
	got, err := direct.Get(t.Context(), "k", store.ByteRange{})
	if err != nil || string(got.Data) != "two" {
		t.Fatalf("the lost attempt was applied, so S3 holds %q (%v), want two", got.Data, err)
	}
	// a plain refusal is still a conflict
	if _, err := s.Set(t.Context(), "k", []byte("three"), store.Condition{IfMatch: v1}); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("a stale If-Match: %v, want a conflict", err)
	}
}
