package store_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/core/store/storetest"
)

// A hooked store is still a whole store, and the hook sees every call.
func TestHookConformance(t *testing.T) {
	var calls atomic.Int64
	storetest.Run(t, func(t *testing.T) store.Store {
		return store.WithHook(store.NewMemory(), func(ctx context.Context, _, _ string, call func(context.Context) error) error {
			calls.Add(1)
			return call(ctx)
		})
	})
	if calls.Load() == 0 {
		t.Fatal("the hook saw no call")
	}
}

// A hook that refuses stops the call before the store sees it, for every
// kind of call, listings included.
func TestHookRefuses(t *testing.T) {
	ctx := context.Background()
	base := store.NewMemory()
	base.Set(ctx, "a", []byte("x"), store.Condition{})
	refused := errors.New("refused")
	var ops []string
	s := store.WithHook(base, func(_ context.Context, op, _ string, _ func(context.Context) error) error {
		ops = append(ops, op)
		return refused
	})
	if _, err := s.Get(ctx, "a", store.ByteRange{}); !errors.Is(err, refused) {
		t.Fatalf("get: %v", err)
	}
	if _, err := s.Set(ctx, "b", []byte("y"), store.Condition{}); !errors.Is(err, refused) {
		t.Fatalf("set: %v", err)
	}
	if _, err := store.ListAll(ctx, s, ""); !errors.Is(err, refused) {
		t.Fatalf("list: %v", err)
	}
	if _, err := base.Get(ctx, "b", store.ByteRange{}); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("a refused set reached the store: %v", err)
	}
	if !slices.Equal(ops, []string{"get", "set", "list"}) {
		t.Fatalf("ops %v", ops)
	}
}

// Limit lets n calls run at once and no more.
func TestLimit(t *testing.T) {
	ctx := context.Background()
	limit := store.Limit(3)
	var running, most atomic.Int64
	full := make(chan struct{}) // closed once 3 calls run at once
	var fullOnce sync.Once
	var wg sync.WaitGroup
	for i := 0; i < 20; i++ {
		wg.Go(func() {
			limit(ctx, "get", "k", func(context.Context) error {
				n := running.Add(1)
				for {
					m := most.Load()
					if n <= m || most.CompareAndSwap(m, n) {
						break
					}
				}
				if n >= 3 {
					fullOnce.Do(func() { close(full) })
				}
				<-full // the first calls wait for each other: 3 run at once
				running.Add(-1)
				return nil
			})
		})
	}
	wg.Wait()
	if most.Load() != 3 {
		t.Fatalf("%d calls ran at once, want 3", most.Load())
	}
	// a waiting call gives up with its context
	block, started := make(chan struct{}), make(chan struct{})
	for i := 0; i < 3; i++ {
		go limit(ctx, "get", "k", func(context.Context) error { started <- struct{}{}; <-block; return nil })
	}
	for i := 0; i < 3; i++ {
		<-started
	}
	short, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel()
	if err := limit(short, "get", "k", func(context.Context) error { return nil }); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a call past a full limit: %v", err)
	}
	close(block)
}

// ListSorted lists in byte order after startAfter, through the wrappers
// (prefix, read-only, hook) and through the fallback that sorts.
func TestListSorted(t *testing.T) {
	ctx := context.Background()
	base := store.NewMemory()
	for _, k := range []string{"ds/b", "ds/a/2", "ds/a/10", "ds/c", "ds/a+", "other/x"} {
		base.Set(ctx, k, []byte("v"), store.Condition{})
	}
	sub, err := store.Sub(base, "ds")
	if err != nil {
		t.Fatal(err)
	}
	pass := func(ctx context.Context, _, _ string, call func(context.Context) error) error { return call(ctx) }
	for name, s := range map[string]store.Store{"sub": sub, "read-only": store.ReadOnly(sub), "hooked": store.WithHook(sub, pass)} {
		var got []string
		for k, err := range store.ListSorted(ctx, s, "", "a/10") {
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, k)
		}
		if want := []string{"a/2", "b", "c"}; !slices.Equal(got, want) {
			t.Errorf("%s: %v, want %v", name, got, want)
		}
	}
}
