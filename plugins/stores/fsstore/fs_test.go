package fsstore

import (
	"testing"

	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/core/store/storetest"
)

func newTestStore(t *testing.T, opts ...Option) *Store {
	t.Helper()
	s, err := New(t.TempDir(), opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// withoutOpenat2 makes s resolve paths as it does on kernels without
// openat2, through os.Root.
func withoutOpenat2(s *Store) *Store {
	s.openat2 = false
	return s
}

func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) store.Store {
		s, err := New(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		if !s.openat2 {
			t.Log("kernel lacks openat2: testing the os.Root fallback only")
		}
		return s
	})
}

func TestConformanceWithoutOpenat2(t *testing.T) {
	storetest.Run(t, func(t *testing.T) store.Store {
		s, err := New(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		return withoutOpenat2(s)
	})
}
