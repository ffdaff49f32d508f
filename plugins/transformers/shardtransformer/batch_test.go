package shardtransformer

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/zarrgw/zarrgw/core/store"
)

// TestBatchConditions: in one batch, once an edit changed the shard, a
// later edit conditional on the version read must fail, or two writers
// that read the same chunk could both commit.
func TestBatchConditions(t *testing.T) {
	s, _ := chunkStore(t, finalArray("/"), []int{4})
	v, err := s.Set(ctx, "foo/c/0", []byte("seed"), store.Condition{})
	if err != nil {
		t.Fatal(err)
	}
	batch := []*job{
		{ctx: ctx, fn: setChunk(0, []byte("first"), store.Condition{IfMatch: v})},
		{ctx: ctx, fn: setChunk(0, []byte("second"), store.Condition{IfMatch: v})},
		{ctx: ctx, fn: setChunk(1, []byte("other"), store.Condition{})},
		{ctx: ctx, fn: setChunk(0, []byte("third"), store.Condition{IfNoneMatch: true})},
	}
	s.apply(ctx, "foo/c/0", batch)
	want := []bool{true, false, true, false}
	for i, j := range batch {
		if !j.done || (j.err == nil) != want[i] {
			t.Errorf("job %d: done %v, error %v", i, j.done, j.err)
		}
		if j.err != nil && !errors.Is(j.err, store.ErrConflict) {
			t.Errorf("job %d: %v is not a conflict", i, j.err)
		}
	}
	for key, want := range map[string]string{"foo/c/0": "first", "foo/c/1": "other"} {
		if got, err := s.Get(ctx, key, store.ByteRange{}); err != nil || string(got.Data) != want {
			t.Errorf("%s = %q (%v), want %q", key, got.Data, err, want)
		}
	}
}

// countingSets counts the writes that reach the next store.
type countingSets struct {
	store.Store
	n atomic.Int64
}

func (c *countingSets) Set(ctx context.Context, key string, data []byte, cond store.Condition) (string, error) {
	c.n.Add(1)
	return c.Store.Set(ctx, key, data, cond)
}

// TestSharedInstanceWriters: goroutines sharing one transformer write
// every chunk of one shard; their writes are merged, none is lost.
func TestSharedInstanceWriters(t *testing.T) {
	next := &countingSets{Store: store.NewMemory()}
	s, err := NewWith(next, finalArray("/"), []int{16}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	const rounds = 20
	var wg sync.WaitGroup
	for w := range 16 {
		wg.Go(func() {
			for r := range rounds {
				if _, err := s.Set(ctx, fmt.Sprintf("foo/c/%d", w), []byte(fmt.Sprint(w, "/", r)), store.Condition{}); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	for w := range 16 {
		got, err := s.Get(ctx, fmt.Sprintf("foo/c/%d", w), store.ByteRange{})
		if err != nil || string(got.Data) != fmt.Sprint(w, "/", rounds-1) {
			t.Errorf("chunk %d = %q (%v)", w, got.Data, err)
		}
	}
	t.Logf("%d chunk writes took %d shard writes", 16*rounds, next.n.Load())
}
