package s3store

import (
	"errors"
	"testing"

	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/tests/support/servers"
)

// A bucket that does not exist is an error, never a missing key: the
// engine reads a missing chunk as fill values.
func TestMissingBucket(t *testing.T) {
	srv := servers.StartS3(t)
	cfg := testConfig(t, srv)
	cfg.Bucket = "no-such-bucket"
	s := newTestStore(t, cfg)
	if _, err := s.Get(t.Context(), "c/0", store.ByteRange{}); err == nil || errors.Is(err, store.ErrNotFound) {
		t.Errorf("Get in a missing bucket: %v, want an error that is not ErrNotFound", err)
	}
	if _, err := s.Stat(t.Context(), "c/0"); err == nil || errors.Is(err, store.ErrNotFound) {
		t.Errorf("Stat in a missing bucket: %v, want an error that is not ErrNotFound", err)
	}
	if _, err := s.GetInto(t.Context(), "c/0", make([]byte, 4)); err == nil || errors.Is(err, store.ErrNotFound) {
		t.Errorf("GetInto in a missing bucket: %v, want an error that is not ErrNotFound", err)
	}
}
