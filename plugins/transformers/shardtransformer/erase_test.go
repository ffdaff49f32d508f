package shardtransformer

import (
	"context"
	"fmt"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/zarrgw/zarrgw/core/store"
)

// batchCounting counts the calls that reach the store below.
type batchCounting struct {
	*store.Memory
	erases, batches, gets atomic.Int64
}

func (b *batchCounting) Erase(ctx context.Context, key string) error {
	b.erases.Add(1)
	return b.Memory.Erase(ctx, key)
}

func (b *batchCounting) EraseMany(ctx context.Context, keys []string) error {
	b.batches.Add(1)
	return b.Memory.EraseMany(ctx, keys)
}

func (b *batchCounting) Get(ctx context.Context, key string, r store.ByteRange) (store.Value, error) {
	b.gets.Add(1)
	return b.Memory.Get(ctx, key, r)
}

// EraseMany of chunks: shards that lose every chunk go in one EraseMany
// of the store below with the keys that are not chunks (no read, no
// erase each); a shard that keeps chunks is rewritten without the
// others.
func TestEraseMany(t *testing.T) {
	next := &batchCounting{Memory: store.NewMemory()}
	s, err := NewWith(next, finalArray("/"), []int{2, 2}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var all []string
	for i := range 6 {
		for j := range 2 {
			all = append(all, fmt.Sprintf("foo/c/%d/%d", i, j))
		}
	}
	all = append(all, "foo/zarr.json")
	for _, key := range all {
		if _, err := s.Set(ctx, key, []byte(key), store.Condition{}); err != nil {
			t.Fatal(err)
		}
	}
	// shards c/1/0 and c/2/0 whole (chunks 2..5 of the first axis), one
	// chunk of shard c/0/0, a missing chunk and the metadata document
	erase := []string{"foo/c/2/0", "foo/c/2/1", "foo/c/3/0", "foo/c/3/1", "foo/c/4/0", "foo/c/4/1",
		"foo/c/5/0", "foo/c/5/1", "foo/c/0/1", "foo/c/9/9", "foo/zarr.json"}
	next.erases.Store(0)
	next.gets.Store(0)
	if err := s.EraseMany(ctx, erase); err != nil {
		t.Fatal(err)
	}
	if e, b, g := next.erases.Load(), next.batches.Load(), next.gets.Load(); e != 0 || b != 1 || g != 2 {
		t.Errorf("the store below saw %d Erase, %d EraseMany, %d Get; want 0, 1 and 2 (the shards that keep chunks, c/0/0, and c/4/4 of the missing chunk)", e, b, g)
	}
	got, _ := store.ListAll(ctx, next, "")
	if want := []string{"foo/c/0/0"}; !slices.Equal(got, want) {
		t.Errorf("the store below holds %q, want %q", got, want)
	}
	for _, key := range all {
		_, err := s.Get(ctx, key, store.ByteRange{})
		if gone := slices.Contains(erase, key); gone != (err != nil) {
			t.Errorf("Get(%q) after EraseMany: %v", key, err)
		}
	}
}
