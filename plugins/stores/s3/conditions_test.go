package s3

import (
	"testing"

	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/core/store/storetest"
	"github.com/zarrgw/zarrgw/tests/servers"
)

// The preconditions are what keeps racing writers from overwriting each
// other (core/array creates a chunk it read as missing with IfNoneMatch):
// with them one create wins, without them (the test hook) all do.
func TestPreconditionsDecide(t *testing.T) {
	srv := servers.StartS3(t)
	create := store.Condition{IfNoneMatch: true}
	wins, err := storetest.Race(t.Context(), newTestStore(t, testConfig(t, srv)), "chunk", 8, create, 0)
	if err != nil || len(wins) != 1 {
		t.Fatalf("racing creates: %d won, %v; want 1 and the rest conflicts", len(wins), err)
	}
	unsafe := newTestStore(t, testConfig(t, srv))
	unsafe.dropConditions = true
	if wins, err := storetest.Race(t.Context(), unsafe, "chunk", 8, create, 0); err != nil || len(wins) < 2 {
		t.Fatalf("without preconditions %d racing creates won (%v): the test cannot tell", len(wins), err)
	}
}
