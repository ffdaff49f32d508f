package azurestore

import (
	"errors"
	"testing"

	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/tests/support/servers"
)

// A container that does not exist is an error, never a missing key: the
// engine reads a missing chunk as fill values.
func TestMissingContainer(t *testing.T) {
	srv := servers.StartAzure(t)
	s := newTestStore(t, Config{Container: "no-such-container", ConnectionString: srv.ConnectionString()})
	if _, err := s.Get(t.Context(), "c/0", store.ByteRange{}); err == nil || errors.Is(err, store.ErrNotFound) {
		t.Errorf("Get in a missing container: %v, want an error that is not ErrNotFound", err)
	}
	if _, err := s.Stat(t.Context(), "c/0"); err == nil || errors.Is(err, store.ErrNotFound) {
		t.Errorf("Stat in a missing container: %v, want an error that is not ErrNotFound", err)
	}
	if _, err := s.GetInto(t.Context(), "c/0", make([]byte, 4)); err == nil || errors.Is(err, store.ErrNotFound) {
		t.Errorf("GetInto in a missing container: %v, want an error that is not ErrNotFound", err)
	}
}
