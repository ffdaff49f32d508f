package server

import (
	"github.com/zarrgw/zarrgw/core/ndarray"
	"github.com/zarrgw/zarrgw/host/serve/server/cache"
)

// chunkCache is one dataset's part of the gateway's cache of decoded
// chunks (an array.ChunkCache): keys are the dataset's store keys.
type chunkCache struct {
	all    *cache.Cache[*ndarray.Array]
	prefix string // the dataset's name and a NUL, which no key holds
	count  cacheCounters
}

func (c *chunkCache) Get(key string) (*ndarray.Array, bool) {
	a, ok := c.all.Get(c.prefix + key)
	if ok {
		c.count.hit.Inc()
	} else {
		c.count.miss.Inc()
	}
	return a, ok
}

func (c *chunkCache) Put(key string, a *ndarray.Array) {
	c.all.Put(c.prefix+key, a, chunkBytes(a)+int64(len(key)))
}

func (c *chunkCache) Drop(key string) { c.all.Drop(c.prefix + key) }

// chunkBytes is the memory a decoded chunk holds.
func chunkBytes(a *ndarray.Array) int64 {
	if a == nil {
		return 0
	}
	n := int64(len(a.Data))
	for _, s := range a.Strings {
		n += int64(16 + len(s))
	}
	return n
}
