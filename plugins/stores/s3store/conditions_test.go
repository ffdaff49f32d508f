package s3store

import (
	"net/http"
	"testing"

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
	lost := servers.LoseAnswer(t, srv.Endpoint, conditionalPut)
	lossy := cfg
	lossy.Endpoint = lost.URL
	storetest.LostAnswerIsNotAConflict(t, newTestStore(t, cfg), newTestStore(t, lossy), lost.Cut)
}

// conditionalPut matches a PUT with If-Match.
func conditionalPut(r *http.Request) bool {
	return r.Method == http.MethodPut && r.Header.Get("If-Match") != ""
}
