package fsstore

import (
	"bytes"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/zarrgw/zarrgw/core/store"
)

const tornSize = 64 << 10

// whole reports whether v is one complete value written by rewrite: the
// full size, every byte the same.
func whole(v []byte) bool {
	return len(v) == tornSize && bytes.Count(v, v[:1]) == tornSize
}

// rewrite writes the key rounds times while readers look at it: one reader
// inside every write (from the mid-write hook, exactly when half the bytes
// are out) and one reading in a loop. It returns how many reads failed or
// saw a torn value.
func rewrite(t *testing.T, s *Store, rounds int) (torn int64) {
	t.Helper()
	mustSetKey(t, s, "k", string(bytes.Repeat([]byte{'@'}, tornSize)))
	var tornCount, midReads atomic.Int64
	// A read that fails (the file shrank under it) is torn as well.
	observe := func(v store.Value, err error) {
		if err != nil || !whole(v.Data) {
			tornCount.Add(1)
		}
	}
	s.test.midWrite = func() {
		midReads.Add(1)
		observe(s.Get(t.Context(), "k", store.ByteRange{}))
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			select {
			case <-done:
				return
			default:
				observe(s.Get(t.Context(), "k", store.ByteRange{}))
			}
		}
	})
	for i := range rounds {
		value := bytes.Repeat([]byte{byte('a' + i%26)}, tornSize)
		if _, err := s.Set(t.Context(), "k", value, store.Condition{}); err != nil {
			t.Fatal(err)
		}
	}
	close(done)
	wg.Wait()
	if midReads.Load() != int64(rounds) {
		t.Fatalf("mid-write hook ran %d times for %d writes", midReads.Load(), rounds)
	}
	return tornCount.Load()
}

func TestReadersNeverSeeTornValues(t *testing.T) {
	s := newTestStore(t, WithDirSync(false))
	if torn := rewrite(t, s, 50); torn != 0 {
		t.Fatalf("readers saw %d torn values", torn)
	}
}

// TestInPlaceWritesTear is the control for the test above: writing the
// target in place, the reader inside each write sees half a value.
func TestInPlaceWritesTear(t *testing.T) {
	s := newTestStore(t, WithDirSync(false))
	s.test.inPlace = true
	torn := rewrite(t, s, 50)
	t.Logf("%d torn reads in 50 in-place writes", torn)
	if torn < 50 {
		t.Fatalf("only %d torn reads in 50 in-place writes; the test cannot tell atomic writes from in-place ones", torn)
	}
}
