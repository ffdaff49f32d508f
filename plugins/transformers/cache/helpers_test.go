package cache_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/plugins/transformers/cache"
)

// counting is a store that counts the calls the cache makes to it, and
// can hold calls (gate) or fail them (fail) to stage races and errors.
type counting struct {
	store.Store
	gets, stats, intos atomic.Int64
	ranged             atomic.Int64 // Gets of a part of a value

	mu sync.Mutex
	// gate, when set, holds every Get until it is closed; ctxErr records
	// whether a held Get's context had ended when it was let go.
	gate   chan struct{}
	ctxErr []error
	// fail, when set, is the error of the next Gets (it is cleared once
	// failures reaches 0).
	fail     error
	failures int
}

func newCounting(s store.Store) *counting { return &counting{Store: s} }

func (c *counting) calls() int64 { return c.gets.Load() + c.stats.Load() + c.intos.Load() }

func (c *counting) reset() {
	c.gets.Store(0)
	c.stats.Store(0)
	c.intos.Store(0)
	c.ranged.Store(0)
}

func (c *counting) String() string {
	return fmt.Sprintf("%d Get, %d Stat, %d GetInto", c.gets.Load(), c.stats.Load(), c.intos.Load())
}

// hold makes Gets wait until the returned function is called.
func (c *counting) hold() (release func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	gate := make(chan struct{})
	c.gate = gate
	return func() {
		c.mu.Lock()
		c.gate = nil
		c.mu.Unlock()
		close(gate)
	}
}

// failNext makes the next n Gets fail with err.
func (c *counting) failNext(n int, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.fail, c.failures = err, n
}

func (c *counting) Get(ctx context.Context, key string, r store.ByteRange) (store.Value, error) {
	c.gets.Add(1)
	if r.Kind != store.Whole {
		c.ranged.Add(1)
	}
	c.mu.Lock()
	gate := c.gate
	var fail error
	if c.failures > 0 {
		fail = c.fail
		c.failures--
	}
	c.mu.Unlock()
	if gate != nil {
		<-gate
		c.mu.Lock()
		c.ctxErr = append(c.ctxErr, ctx.Err())
		c.mu.Unlock()
	}
	if fail != nil {
		return store.Value{}, fail
	}
	return c.Store.Get(ctx, key, r)
}

func (c *counting) Stat(ctx context.Context, key string) (store.Info, error) {
	c.stats.Add(1)
	return c.Store.Stat(ctx, key)
}

func (c *counting) GetInto(ctx context.Context, key string, dst []byte) (bool, error) {
	c.intos.Add(1)
	return store.GetInto(ctx, c.Store, key, dst)
}

// clock is a fake clock the tests move by hand.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func newClock() *clock { return &clock{now: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// setup is a cache over a counting memory store.
type setup struct {
	mem   *store.Memory
	next  *counting
	clock *clock
	c     *cache.Cache
}

func newSetup(t testing.TB, opts cache.Options, defect string) *setup {
	t.Helper()
	s := &setup{mem: store.NewMemory(), clock: newClock()}
	s.next = newCounting(s.mem)
	if opts.MemoryBytes == 0 {
		opts.MemoryBytes = 64 << 20
	}
	if opts.Now == nil {
		opts.Now = s.clock.Now
	}
	c, err := cache.New(s.next, opts)
	if err != nil {
		t.Fatal(err)
	}
	if defect != "" {
		cache.SetDefect(c, defect)
	}
	s.c = c
	t.Cleanup(func() { c.Close() })
	return s
}

// long is a revalidate_after no test reaches.
const long = time.Hour

func (s *setup) set(t testing.TB, key, value string) string {
	t.Helper()
	v, err := s.c.Set(t.Context(), key, []byte(value), store.Condition{})
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// setBehind writes to the store below, behind the cache's back.
func (s *setup) setBehind(t testing.TB, key, value string) {
	t.Helper()
	if _, err := s.mem.Set(t.Context(), key, []byte(value), store.Condition{}); err != nil {
		t.Fatal(err)
	}
}

func get(ctx context.Context, s store.Store, key string, r store.ByteRange) (string, error) {
	v, err := s.Get(ctx, key, r)
	return string(v.Data), err
}

// wantGet fails unless a Get of key and r returns want.
func wantGet(t testing.TB, s store.Store, key string, r store.ByteRange, want string) {
	t.Helper()
	got, err := get(t.Context(), s, key, r)
	if err != nil || got != want {
		t.Fatalf("Get(%q, %s) = %q, %v; want %q", key, r, got, err, want)
	}
}

func wantMissing(t testing.TB, s store.Store, key string) {
	t.Helper()
	if _, err := s.Get(t.Context(), key, store.ByteRange{}); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("Get(%q): %v, want ErrNotFound", key, err)
	}
}

// wantCalls fails unless the store below saw n calls since its reset.
func (s *setup) wantCalls(t testing.TB, n int64, what string) {
	t.Helper()
	if got := s.next.calls(); got != n {
		t.Fatalf("%s: the store saw %s, want %d calls", what, s.next, n)
	}
}

// waitFor polls until cond holds: it waits for goroutines to reach a
// state, never for time to pass, and the test's deadline bounds it.
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	for !cond() {
		if t.Context().Err() != nil {
			t.Fatalf("never reached: %s", what)
		}
		time.Sleep(100 * time.Microsecond)
	}
}

func sprintf(format string, args ...any) string { return fmt.Sprintf(format, args...) }
