package azure

import (
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
