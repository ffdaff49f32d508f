package plugins

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"

	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/core/store/storetest"
	"github.com/zarrgw/zarrgw/host/runtime/registry"
)

// getCounting is a memory store that counts the reads reaching it.
type getCounting struct {
	*store.Memory
	reads atomic.Int64
}

func (c *getCounting) Get(ctx context.Context, key string, r store.ByteRange) (store.Value, error) {
	c.reads.Add(1)
	return c.Memory.Get(ctx, key, r)
}

func (c *getCounting) Stat(ctx context.Context, key string) (store.Info, error) {
	c.reads.Add(1)
	return c.Memory.Stat(ctx, key)
}

func (c *getCounting) GetInto(ctx context.Context, key string, dst []byte) (bool, error) {
	c.reads.Add(1)
	return c.Memory.GetInto(ctx, key, dst)
}

// The cache transformer, bundled, runs out of process as "zarrgw plugin
// serve --kind transformer cache" over a store the host serves back to
// it: the stack passes the store suite, and a second read is answered in
// the plugin without reaching the host's store.
func TestCacheOutOfProcess(t *testing.T) {
	l, _ := newLauncher(t)
	parts, err := registry.Bundled().OutOfProcess(l, zarrgwBin)
	if err != nil {
		t.Fatal(err)
	}
	open := func(t testing.TB, next store.Store) store.Store {
		s, err := parts.NewTransformer(context.Background(), "cache", json.RawMessage(`{"memory":"16MiB","revalidate_after":"1h"}`), next)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	storetest.Run(t, func(t *testing.T) store.Store { return open(t, store.NewMemory()) })

	ctx := context.Background()
	next := &getCounting{Memory: store.NewMemory()}
	s := open(t, next)
	defer s.Close()
	if _, err := s.Set(ctx, "a/k", []byte("value"), store.Condition{}); err != nil {
		t.Fatal(err)
	}
	for _, r := range []store.ByteRange{{}, store.Range(1, 3)} {
		if v, err := s.Get(ctx, "a/k", r); err != nil || len(v.Data) == 0 {
			t.Fatalf("Get(%s) = %q, %v", r, v.Data, err)
		}
	}
	first := next.reads.Load()
	for _, r := range []store.ByteRange{{}, store.Range(1, 3)} {
		if _, err := s.Get(ctx, "a/k", r); err != nil {
			t.Fatal(err)
		}
	}
	if n := next.reads.Load() - first; first == 0 || n != 0 {
		t.Fatalf("reads reaching the host's store: %d the first time, %d the second; want some, then none", first, n)
	}
}
