package azurestore

import (
	"net/http"
	"strings"
	"testing"

	"github.com/zarrgw/zarrgw/core/store/storetest"
	"github.com/zarrgw/zarrgw/tests/support/servers"
)

// The preconditions decide racing creates: one wins with them, several
// without them.
func TestPreconditionsDecide(t *testing.T) {
	srv := servers.StartAzure(t)
	unsafe := newTestStore(t, testConfig(t, srv))
	unsafe.dropConditions = true
	storetest.PreconditionsDecide(t, newTestStore(t, testConfig(t, srv)), unsafe)
}

// A conditional upload whose answer is lost after Azure applied it,
// retried and then refused because of itself, is an unknown outcome,
// never a conflict (see the S3 store's test of the same name).
func TestConditionalWriteLostAnswerIsNotAConflict(t *testing.T) {
	srv := servers.StartAzure(t)
	cfg := testConfig(t, srv)
	lost := servers.LoseAnswer(t, "http://"+srv.Addr, conditionalPut)
	lossy := cfg
	lossy.ConnectionString = strings.Replace(cfg.ConnectionString, "http://"+srv.Addr, lost.URL, 1)
	storetest.LostAnswerIsNotAConflict(t, newTestStore(t, cfg), newTestStore(t, lossy), lost.Cut)
}

// conditionalPut matches a PUT with If-Match.
func conditionalPut(r *http.Request) bool {
	return r.Method == http.MethodPut && r.Header.Get("If-Match") != ""
}
