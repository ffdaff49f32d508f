// Package cache is a bounded cache of values by key: least recently used
// first out when the values' sizes pass a limit, and no value trusted for
// longer than a TTL. The gateway keeps metadata documents and decoded
// chunks in it; the TTL bounds how long another replica's write can go
// unseen.
package cache

import (
	"container/list"
	"strings"
	"sync"
	"time"
)

// Cache holds values of type V. The zero value is not usable; see New.
type Cache[V any] struct {
	max int64
	ttl time.Duration

	mu    sync.Mutex
	order *list.List // of *entry[V], most recently used first
	items map[string]*list.Element
	size  int64
}

type entry[V any] struct {
	key   string
	value V
	size  int64
	at    time.Time
}

// New returns a cache of at most max bytes of values, each trusted for
// ttl. A cache with max or ttl of zero keeps nothing.
func New[V any](max int64, ttl time.Duration) *Cache[V] {
	return &Cache[V]{max: max, ttl: ttl, order: list.New(), items: map[string]*list.Element{}}
}

// Enabled reports whether the cache keeps anything.
func (c *Cache[V]) Enabled() bool { return c.max > 0 && c.ttl > 0 }

// Get returns the value of key if it is there and younger than the TTL.
func (c *Cache[V]) Get(key string) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.items[key]
	if !ok {
		var zero V
		return zero, false
	}
	e := el.Value.(*entry[V])
	if time.Since(e.at) > c.ttl {
		c.remove(el)
		var zero V
		return zero, false
	}
	c.order.MoveToFront(el)
	return e.value, true
}

// Put stores value under key; size is what it counts against the limit.
// A value larger than a quarter of the limit is not kept, so that one
// value cannot push out all the others.
func (c *Cache[V]) Put(key string, value V, size int64) {
	if !c.Enabled() {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, ok := c.items[key]; ok {
		c.remove(old)
	}
	if size > c.max/4 {
		return
	}
	c.items[key] = c.order.PushFront(&entry[V]{key: key, value: value, size: size, at: time.Now()})
	c.size += size
	for c.size > c.max {
		c.remove(c.order.Back())
	}
}

// Drop forgets key.
func (c *Cache[V]) Drop(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.items[key]; ok {
		c.remove(el)
	}
}

// DropPrefix forgets every key starting with prefix ("" for all).
func (c *Cache[V]) DropPrefix(prefix string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for k, el := range c.items {
		if strings.HasPrefix(k, prefix) {
			c.remove(el)
		}
	}
}

// Size is the total size of the values kept.
func (c *Cache[V]) Size() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.size
}

func (c *Cache[V]) remove(el *list.Element) {
	e := c.order.Remove(el).(*entry[V])
	delete(c.items, e.key)
	c.size -= e.size
}
