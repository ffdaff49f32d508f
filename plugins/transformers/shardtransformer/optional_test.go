package shardtransformer

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/core/store/storetest"
)

// The transformer reads into buffers where the store below does, and
// lists sorted and with sizes by its own means over any store.
func TestForwarding(t *testing.T) {
	storetest.RunForwarding(t, func(t testing.TB, inner store.Store) store.Store {
		s, err := New(inner, finalArray("/"), []int{2, 2})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}, storetest.ForwardOptions{Own: store.Optional{Sorted: true, Info: true}})
}

// countingNext counts the calls a listing makes of the store below.
type countingNext struct {
	*store.Memory
	stats, gets atomic.Int64
}

func (c *countingNext) Stat(ctx context.Context, key string) (store.Info, error) {
	c.stats.Add(1)
	return c.Memory.Stat(ctx, key)
}

func (c *countingNext) Get(ctx context.Context, key string, r store.ByteRange) (store.Value, error) {
	c.gets.Add(1)
	return c.Memory.Get(ctx, key, r)
}

// A listing with sizes reads each shard's index no more often than the
// listing of keys does (a Stat per chunk reads it once per chunk), and
// takes the sizes of keys that pass through from the listing below: it
// makes no Stat. Its sizes and versions are Stat's.
func TestListInfoReadsIndexesOnce(t *testing.T) {
	next := &countingNext{Memory: store.NewMemory()}
	s, err := New(next, finalArray("/"), []int{2, 2})
	if err != nil {
		t.Fatal(err)
	}
	keys := []string{"foo/zarr.json", "zarr.json", "foo/c/0/0", "foo/c/0/1", "foo/c/1/0", "foo/c/1/1", "foo/c/2/0", "foo/c/10/3"}
	for i, k := range keys {
		if _, err := s.Set(ctx, k, []byte(fmt.Sprint(k, i)), store.Condition{}); err != nil {
			t.Fatal(err)
		}
	}
	next.gets.Store(0)
	sorted, err := store.Collect(store.ListSorted(ctx, s, "", ""))
	if err != nil || len(sorted) != len(keys) {
		t.Fatalf("ListSorted = %q, %v", sorted, err)
	}
	walkGets := next.gets.Swap(0)
	var entries []store.Entry
	for e, err := range store.ListInfo(ctx, s, "", "") {
		if err != nil {
			t.Fatal(err)
		}
		entries = append(entries, e)
	}
	if stats, gets := next.stats.Load(), next.gets.Load(); stats != 0 || gets > walkGets {
		t.Errorf("ListInfo made %d Stats and %d reads below; listing the keys made %d reads", stats, gets, walkGets)
	}
	if len(entries) != len(sorted) {
		t.Fatalf("ListInfo listed %d keys, ListSorted %q", len(entries), sorted)
	}
	for i, e := range entries {
		want, err := s.Stat(ctx, e.Key)
		if e.Key != sorted[i] || err != nil || e.Info.Size != want.Size || e.Info.Version != want.Version {
			t.Errorf("ListInfo: %s %+v, want %s with Stat's %+v (%v)", e.Key, e.Info, sorted[i], want, err)
		}
	}
}
