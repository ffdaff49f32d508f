package s3store

import (
	"bytes"
	"errors"
	"testing"

	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/tests/support/servers"
)

// GetBuffer reads a value that fits into the buffer lent (no buffer of
// its own), one that does not into a new one, with the object's ETag, and
// a missing key is ErrNotFound.
func TestGetBuffer(t *testing.T) {
	srv := servers.StartS3(t)
	s := newTestStore(t, testConfig(t, srv))
	value := bytes.Repeat([]byte("v"), 1000)
	version, err := s.Set(t.Context(), "k", value, store.Condition{})
	if err != nil {
		t.Fatal(err)
	}
	for _, size := range []int{4096, 1000, 999} {
		buf := make([]byte, size)
		v, err := s.GetBuffer(t.Context(), "k", buf)
		if err != nil || !bytes.Equal(v.Data, value) || v.Version != version {
			t.Fatalf("GetBuffer into %d bytes: %d bytes, version %q, %v", size, len(v.Data), v.Version, err)
		}
		if inBuf := &v.Data[0] == &buf[0]; inBuf != (size >= len(value)) {
			t.Errorf("GetBuffer into %d bytes: in the buffer %v", size, inBuf)
		}
	}
	if _, err := s.GetBuffer(t.Context(), "missing", make([]byte, 10)); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("GetBuffer of a missing key: %v", err)
	}
}
