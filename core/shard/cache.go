package shard

import (
	"container/list"
	"sync"
)

// Cache is a bounded LRU of decoded indexes keyed by (key, version). A
// shard that changes gets a new version, so its old index is never found
// for the new value; readers that use Latest must confirm the version of
// the bytes they then read. Safe for concurrent use.
type Cache struct {
	mu       sync.Mutex
	maxBytes int64
	used     int64
	lru      *list.List // front = most recently used
	items    map[cacheKey]*list.Element
	latest   map[string]string // key -> the most recently stored version
}

type cacheKey struct{ key, version string }

// cacheEntryOverhead is what an entry costs beyond its index, key and
// version bytes: the map entry, the list element and the cacheItem. An
// estimate, so that many tiny indexes cannot outgrow maxBytes unseen.
const cacheEntryOverhead = 64

type cacheItem struct {
	k    cacheKey
	ix   *Index
	cost int64
}

// NewCache returns a cache holding indexes of up to maxBytes raw bytes.
func NewCache(maxBytes int64) *Cache {
	return &Cache{maxBytes: maxBytes, lru: list.New(), items: map[cacheKey]*list.Element{}, latest: map[string]string{}}
}

// Get returns the index of key at version.
func (c *Cache) Get(key, version string) (*Index, bool) {
	if c == nil || version == "" {
		return nil, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.items[cacheKey{key, version}]
	if !ok {
		return nil, false
	}
	c.lru.MoveToFront(el)
	return el.Value.(*cacheItem).ix, true
}

// Latest returns the most recently stored index of key and its version.
func (c *Cache) Latest(key string) (*Index, string, bool) {
	if c == nil {
		return nil, "", false
	}
	c.mu.Lock()
	v, ok := c.latest[key]
	c.mu.Unlock()
	if !ok {
		return nil, "", false
	}
	ix, ok := c.Get(key, v)
	return ix, v, ok
}

// Put stores the index of key at version (ignored without a version:
// nothing could tell a stale entry from a fresh one).
func (c *Cache) Put(key, version string, ix *Index) {
	if c == nil || version == "" {
		return
	}
	cost := int64(ix.Len())*EntrySize + int64(len(key)+len(version)) + cacheEntryOverhead
	if cost > c.maxBytes {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	k := cacheKey{key, version}
	c.latest[key] = version
	if el, ok := c.items[k]; ok {
		c.lru.MoveToFront(el)
		return
	}
	c.items[k] = c.lru.PushFront(&cacheItem{k: k, ix: ix, cost: cost})
	c.used += cost
	for c.used > c.maxBytes {
		c.evict(c.lru.Back())
	}
}

// Forget drops the latest index of key, so Latest misses until the next
// Put. (Older versions may linger until evicted; Get finds them only by
// their own version, which no longer comes back from the store.)
func (c *Cache) Forget(key string) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if v, ok := c.latest[key]; ok {
		if el, ok := c.items[cacheKey{key, v}]; ok {
			c.evict(el)
		}
		delete(c.latest, key)
	}
}

func (c *Cache) evict(el *list.Element) {
	it := el.Value.(*cacheItem)
	c.lru.Remove(el)
	delete(c.items, it.k)
	c.used -= it.cost
	if c.latest[it.k.key] == it.k.version {
		delete(c.latest, it.k.key)
	}
}

// Len is the number of cached indexes.
func (c *Cache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.items)
}
