package store

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// counting wraps a store and records the most calls in flight at once.
type counting struct {
	Store
	inFlight, peak atomic.Int64
	failErase      string
}

func (c *counting) enter() func() {
	n := c.inFlight.Add(1)
	for {
		p := c.peak.Load()
		if n <= p || c.peak.CompareAndSwap(p, n) {
			break
		}
	}
	time.Sleep(200 * time.Microsecond) // let an unbounded fan-out pile up
	return func() { c.inFlight.Add(-1) }
}

func (c *counting) Get(ctx context.Context, key string, r ByteRange) (Value, error) {
	defer c.enter()()
	return c.Store.Get(ctx, key, r)
}

func (c *counting) Erase(ctx context.Context, key string) error {
	defer c.enter()()
	if key == c.failErase {
		return fmt.Errorf("erase %q: disk on fire", key)
	}
	return c.Store.Erase(ctx, key)
}

func seeded(t *testing.T, keys ...string) *counting {
	m := NewMemory()
	for _, k := range keys {
		if _, err := m.Set(t.Context(), k, []byte("v:"+k), Condition{}); err != nil {
			t.Fatal(err)
		}
	}
	return &counting{Store: m}
}

func TestGetManyKeepsOrderAndBound(t *testing.T) {
	s := seeded(t, "a", "b", "c/d")
	var reqs []Request
	for i := range 60 {
		reqs = append(reqs, Request{Key: []string{"a", "b", "missing", "c/d"}[i%4], Range: From(2)})
	}
	results := GetMany(t.Context(), s, reqs, 3)
	for i, res := range results {
		key := reqs[i].Key
		if key == "missing" {
			if !errors.Is(res.Err, ErrNotFound) {
				t.Fatalf("result %d for a missing key: %v", i, res.Err)
			}
			continue
		}
		if res.Err != nil || string(res.Value.Data) != key {
			t.Fatalf("result %d = %q, %v; want %q", i, res.Value.Data, res.Err, key)
		}
	}
	if p := s.peak.Load(); p > 3 {
		t.Fatalf("%d Gets in flight with parallelism 3", p)
	}
}

func TestGetManyCancelled(t *testing.T) {
	s := seeded(t, "a")
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	for i, res := range GetMany(ctx, s, []Request{{Key: "a"}, {Key: "a"}}, 2) {
		if !errors.Is(res.Err, context.Canceled) || errors.Is(res.Err, ErrNotFound) {
			t.Fatalf("result %d with a cancelled context: %v", i, res.Err)
		}
	}
}

func TestEraseEachJoinsFailures(t *testing.T) {
	s := seeded(t, "a", "b", "c", "d")
	s.failErase = "c"
	err := EraseEach(t.Context(), s, []string{"a", "b", "c", "d", "missing"}, 2)
	if err == nil || !strings.Contains(err.Error(), `"c": disk on fire`) {
		t.Fatalf("EraseEach = %v, want the failure for c, named", err)
	}
	keys, err := ListAll(t.Context(), s, "")
	if err != nil || !slices.Equal(keys, []string{"c"}) {
		t.Fatalf("keys after EraseEach = %q, %v; want [c]", keys, err)
	}
	if p := s.peak.Load(); p > 2 {
		t.Fatalf("%d Erases in flight with parallelism 2", p)
	}
}

func TestListDirFromList(t *testing.T) {
	s := seeded(t, "a/b", "a/c", "a/d/e", "a/f/g", "a/f/h", "x")
	d, err := ListDirFromList(t.Context(), s, "a/")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(d.Keys, []string{"a/b", "a/c"}) || !slices.Equal(d.Prefixes, []string{"a/d/", "a/f/"}) {
		t.Fatalf("ListDirFromList(a/) = %+v", d)
	}
	if _, err := ListDirFromList(t.Context(), s, "a"); !errors.Is(err, ErrInvalidKey) {
		t.Fatalf("prefix without slash: %v", err)
	}
}
