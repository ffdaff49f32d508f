// Package storecache holds the gateway's caches in front of a dataset's
// store: the metadata documents (MetaCache, a store wrapper) and the
// decoded chunks (ChunkCache, array.Options.Chunks), both over the
// generic cache of host/serve/server/cache.
package storecache

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"path"
	"strings"
	"time"

	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/host/serve/server/cache"
	"github.com/zarrgw/zarrgw/host/serve/server/metrics"
)

// metaCache is a store that keeps the metadata documents of the store
// below (zarr.json, .zarray, .zgroup, .zattrs, .zmetadata and the draft
// layout's meta/ documents), and their absence, for at most ttl and within
// max bytes, least recently used first out. Zarr clients read these on
// every array they open, and probe for the ones of other formats.
// Writes through it drop the entry; writes by other replicas show after
// ttl at most.
type MetaCache struct {
	Next  store.Store
	docs  *cache.Cache[metaEntry]
	count metrics.Counters
}

// metaEntry is a document, or its absence.
type metaEntry struct {
	data    []byte
	version string
	modTime time.Time
	absent  bool
}

// withMetaCache puts a metadata cache over next: the store to use, which
// claims the optional reads and listings only where next has them (its
// Capabilities are next's), and the cache itself.
func WithMetaCache(next store.Store, max int64, ttl time.Duration, count metrics.Counters) (store.Store, *MetaCache) {
	mc := newMetaCache(next, max, ttl, count)
	return mc, mc
}

func newMetaCache(next store.Store, max int64, ttl time.Duration, count metrics.Counters) *MetaCache {
	return &MetaCache{Next: next, docs: cache.New[metaEntry](max, ttl), count: count}
}

// IsMetaKey reports whether key names a metadata document.
func IsMetaKey(key string) bool {
	switch path.Base(key) {
	case "zarr.json", ".zarray", ".zgroup", ".zattrs", ".zmetadata":
		return true
	}
	return strings.HasPrefix(key, "meta/") && strings.HasSuffix(key, ".json")
}

func (c *MetaCache) caching(key string) bool { return c.docs.Enabled() && IsMetaKey(key) }

// entry returns the entry of key, reading the store on a miss.
func (c *MetaCache) entry(ctx context.Context, key string) (metaEntry, error) {
	if e, ok := c.docs.Get(key); ok {
		c.count.Hit.Inc()
		return e, nil
	}
	c.count.Miss.Inc()
	v, err := c.Next.Get(ctx, key, store.ByteRange{})
	e := metaEntry{data: v.Data, version: v.Version, modTime: v.ModTime}
	switch {
	case errors.Is(err, store.ErrNotFound):
		e.absent = true
	case err != nil:
		return metaEntry{}, err
	}
	c.docs.Put(key, e, int64(len(e.data)+len(key)))
	return e, nil
}

func (c *MetaCache) Capabilities() store.Capabilities { return c.Next.Capabilities() }
func (c *MetaCache) Close() error                     { return c.Next.Close() }

func (c *MetaCache) Get(ctx context.Context, key string, r store.ByteRange) (store.Value, error) {
	if !c.caching(key) {
		return c.Next.Get(ctx, key, r)
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
	return store.Value{Data: append([]byte{}, e.data[start:end]...), Version: e.version, ModTime: e.modTime}, nil
}

func (c *MetaCache) GetInto(ctx context.Context, key string, dst []byte) (bool, error) {
	if !c.caching(key) {
		return store.GetInto(ctx, c.Next, key, dst)
	}
	v, err := c.Get(ctx, key, store.ByteRange{})
	if err != nil || len(v.Data) != len(dst) {
		return false, err
	}
	copy(dst, v.Data)
	return true, nil
}

func (c *MetaCache) Stat(ctx context.Context, key string) (store.Info, error) {
	if !c.caching(key) {
		return c.Next.Stat(ctx, key)
	}
	e, err := c.entry(ctx, key)
	if err != nil {
		return store.Info{}, err
	}
	if e.absent {
		return store.Info{}, fmt.Errorf("stat %q: %w", key, store.ErrNotFound)
	}
	return store.Info{Size: int64(len(e.data)), Version: e.version, ModTime: e.modTime}, nil
}

func (c *MetaCache) Set(ctx context.Context, key string, data []byte, cond store.Condition) (string, error) {
	c.docs.Drop(key)
	defer c.docs.Drop(key) // a read racing the write may have cached the old value
	return c.Next.Set(ctx, key, data, cond)
}

func (c *MetaCache) Erase(ctx context.Context, key string) error {
	defer c.docs.Drop(key)
	return c.Next.Erase(ctx, key)
}

func (c *MetaCache) EraseMany(ctx context.Context, keys []string) error {
	defer func() {
		for _, key := range keys {
			c.docs.Drop(key)
		}
	}()
	return c.Next.EraseMany(ctx, keys)
}

func (c *MetaCache) ErasePrefix(ctx context.Context, prefix string) error {
	defer c.docs.DropPrefix(prefix)
	return c.Next.ErasePrefix(ctx, prefix)
}

func (c *MetaCache) List(ctx context.Context, prefix string) iter.Seq2[string, error] {
	return c.Next.List(ctx, prefix)
}

func (c *MetaCache) ListSorted(ctx context.Context, prefix, startAfter string) iter.Seq2[string, error] {
	return store.ListSorted(ctx, c.Next, prefix, startAfter)
}

func (c *MetaCache) ListDir(ctx context.Context, prefix string) (store.Dir, error) {
	return c.Next.ListDir(ctx, prefix)
}

func (c *MetaCache) ListInfo(ctx context.Context, prefix, startAfter string) iter.Seq2[store.Entry, error] {
	return store.ListInfo(ctx, c.Next, prefix, startAfter)
}
