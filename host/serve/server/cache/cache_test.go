package cache

import (
	"fmt"
	"testing"
	"time"
)

// The least recently used values go first when the sizes pass the limit.
func TestEvictsLeastRecentlyUsed(t *testing.T) {
	c := New[string](100, time.Hour)
	for i := 0; i < 4; i++ {
		c.Put(fmt.Sprint(i), "v", 25)
	}
	c.Get("0") // 1 is now the least recently used
	c.Put("4", "v", 25)
	if _, ok := c.Get("1"); ok {
		t.Fatal("the least recently used value stayed")
	}
	for _, k := range []string{"0", "2", "3", "4"} {
		if _, ok := c.Get(k); !ok {
			t.Fatalf("%s was evicted", k)
		}
	}
	if c.Size() != 100 {
		t.Fatalf("size %d, want 100", c.Size())
	}
	c.Put("huge", "v", 26) // over a quarter of the limit
	if _, ok := c.Get("huge"); ok || c.Size() != 100 {
		t.Fatalf("a value over a quarter of the limit was kept (size %d)", c.Size())
	}
}

// Nothing is trusted past the TTL, dropped keys are gone, and a cache of
// zero size keeps nothing.
func TestTTLAndDrops(t *testing.T) {
	c := New[int](1000, time.Hour) // nothing expires while the drops are tested
	c.Put("a/1", 1, 1)
	c.Put("a/2", 2, 1)
	c.Put("b/1", 3, 1)
	c.DropPrefix("a/")
	if _, ok := c.Get("a/1"); ok {
		t.Fatal("DropPrefix left a/1")
	}
	if v, ok := c.Get("b/1"); !ok || v != 3 {
		t.Fatal("DropPrefix took b/1")
	}
	c.Drop("b/1")
	if _, ok := c.Get("b/1"); ok {
		t.Fatal("Drop left b/1")
	}
	short := New[int](1000, 30*time.Millisecond)
	short.Put("c", 4, 1)
	time.Sleep(60 * time.Millisecond) // past the TTL however slow the machine: a sleep can only be longer
	if _, ok := short.Get("c"); ok {
		t.Fatal("a value older than the TTL was returned")
	}
	off := New[int](0, time.Hour)
	off.Put("k", 1, 1)
	if _, ok := off.Get("k"); ok || off.Enabled() {
		t.Fatal("a cache of size 0 kept a value")
	}
}
