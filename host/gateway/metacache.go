package gateway

import (
	"container/list"
	"context"
	"errors"
	"fmt"
	"iter"
	"path"
	"strings"
	"sync"
	"time"

	"github.com/zarrgw/zarrgw/core/store"
)

// metaCache is a store that keeps the metadata documents of the store
// below (zarr.json, .zarray, .zgroup, .zattrs, .zmetadata and the draft
// layout's meta/ documents), and their absence, for at most ttl and within
// max bytes, least recently used first out. Zarr clients read these on
// every array they open, and probe for the ones of other formats.
// Writes through it drop the entry; writes by other replicas show after
// ttl at most.
type metaCache struct {
	next  store.Store
	max   int64
	ttl   time.Duration
	count cacheCounters

	mu    sync.Mutex
	order *list.List // of *metaEntry, most recently used first
	items map[string]*list.Element
	size  int64
}

type metaEntry struct {
	key     string
	data    []byte
	version string
	absent  bool
	at      time.Time
}

func newMetaCache(next store.Store, max int64, ttl time.Duration, count cacheCounters) *metaCache {
	return &metaCache{next: next, max: max, ttl: ttl, count: count, order: list.New(), items: map[string]*list.Element{}}
}

// isMetaKey reports whether key names a metadata document.
func isMetaKey(key string) bool {
	switch path.Base(key) {
	case "zarr.json", ".zarray", ".zgroup", ".zattrs", ".zmetadata":
		return true
	}
	return strings.HasPrefix(key, "meta/") && strings.HasSuffix(key, ".json")
}

func (c *metaCache) caching(key string) bool { return c.max > 0 && c.ttl > 0 && isMetaKey(key) }

// entry returns the fresh entry of key, reading the store on a miss.
func (c *metaCache) entry(ctx context.Context, key string) (metaEntry, error) {
	if e, ok := c.lookup(key); ok {
		c.count.hit.Inc()
		return e, nil
	}
	c.count.miss.Inc()
	v, err := c.next.Get(ctx, key, store.ByteRange{})
	e := metaEntry{key: key, data: v.Data, version: v.Version, at: time.Now()}
	switch {
	case errors.Is(err, store.ErrNotFound):
		e.absent = true
	case err != nil:
		return metaEntry{}, err
	}
	c.add(e)
	return e, nil
}

func (c *metaCache) lookup(key string) (metaEntry, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.items[key]
	if !ok {
		return metaEntry{}, false
	}
	e := el.Value.(*metaEntry)
	if time.Since(e.at) > c.ttl {
		c.remove(el)
		return metaEntry{}, false
	}
	c.order.MoveToFront(el)
	return *e, true
}

func (c *metaCache) add(e metaEntry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, ok := c.items[e.key]; ok {
		c.remove(old)
	}
	if int64(len(e.data)) > c.max/4 {
		return // one document may not crowd out the rest
	}
	c.items[e.key] = c.order.PushFront(&e)
	c.size += int64(len(e.data))
	for c.size > c.max {
		c.remove(c.order.Back())
	}
}

func (c *metaCache) remove(el *list.Element) {
	e := c.order.Remove(el).(*metaEntry)
	delete(c.items, e.key)
	c.size -= int64(len(e.data))
}

// drop forgets key.
func (c *metaCache) drop(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.items[key]; ok {
		c.remove(el)
	}
}

// dropPrefix forgets every key below prefix ("" for all).
func (c *metaCache) dropPrefix(prefix string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for k, el := range c.items {
		if strings.HasPrefix(k, prefix) {
			c.remove(el)
		}
	}
}

func (c *metaCache) Capabilities() store.Capabilities { return c.next.Capabilities() }
func (c *metaCache) Close() error                     { return c.next.Close() }

func (c *metaCache) Get(ctx context.Context, key string, r store.ByteRange) (store.Value, error) {
	if !c.caching(key) {
		return c.next.Get(ctx, key, r)
	}
	e, err := c.entry(ctx, key)
	if err != nil {
		return store.Value{}, err
	}
	if e.absent {
		return store.Value{}, fmt.Errorf("get %q: %w", key, store.ErrNotFound)
	}
	start, end, err := r.Resolve(int64(len(e.data)))
	if err != nil {
		return store.Value{}, fmt.Errorf("get %q: %w", key, err)
	}
	// a copy: callers own what they are given
	return store.Value{Data: append([]byte{}, e.data[start:end]...), Version: e.version}, nil
}

func (c *metaCache) GetInto(ctx context.Context, key string, dst []byte) (bool, error) {
	if !c.caching(key) {
		return store.GetInto(ctx, c.next, key, dst)
	}
	v, err := c.Get(ctx, key, store.ByteRange{})
	if err != nil || len(v.Data) != len(dst) {
		return false, err
	}
	copy(dst, v.Data)
	return true, nil
}

func (c *metaCache) Stat(ctx context.Context, key string) (store.Info, error) {
	if !c.caching(key) {
		return c.next.Stat(ctx, key)
	}
	e, err := c.entry(ctx, key)
	if err != nil {
		return store.Info{}, err
	}
	if e.absent {
		return store.Info{}, fmt.Errorf("stat %q: %w", key, store.ErrNotFound)
	}
	return store.Info{Size: int64(len(e.data)), Version: e.version}, nil
}

func (c *metaCache) Set(ctx context.Context, key string, data []byte, cond store.Condition) (string, error) {
	c.drop(key)
	defer c.drop(key) // a read racing the write may have cached the old value
	return c.next.Set(ctx, key, data, cond)
}

func (c *metaCache) Erase(ctx context.Context, key string) error {
	defer c.drop(key)
	return c.next.Erase(ctx, key)
}

func (c *metaCache) ErasePrefix(ctx context.Context, prefix string) error {
	defer c.dropPrefix(prefix)
	return c.next.ErasePrefix(ctx, prefix)
}

func (c *metaCache) List(ctx context.Context, prefix string) iter.Seq2[string, error] {
	return c.next.List(ctx, prefix)
}

func (c *metaCache) ListSorted(ctx context.Context, prefix, startAfter string) iter.Seq2[string, error] {
	return store.ListSorted(ctx, c.next, prefix, startAfter)
}

func (c *metaCache) ListDir(ctx context.Context, prefix string) (store.Dir, error) {
	return c.next.ListDir(ctx, prefix)
}
