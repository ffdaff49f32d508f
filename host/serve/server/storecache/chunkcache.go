package storecache

import (
	"github.com/zarrgw/zarrgw/core/ndarray"
	"github.com/zarrgw/zarrgw/host/serve/server/cache"
	"github.com/zarrgw/zarrgw/host/serve/server/metrics"
)

// chunkCache is one dataset's part of the gateway's cache of decoded
// chunks (an array.ChunkCache): keys are the dataset's store keys.
type ChunkCache struct {
	All    *cache.Cache[*ndarray.Array]
	Prefix string // the dataset's name and a NUL, which no key holds
	Count  metrics.Counters
}

func (c *ChunkCache) Get(key string) (*ndarray.Array, bool) {
	a, ok := c.All.Get(c.Prefix + key)
	if ok {
		c.Count.Hit.Inc()
	} else {
		c.Count.Miss.Inc()
	}
	return a, ok
}

func (c *ChunkCache) Put(key string, a *ndarray.Array) {
	c.All.Put(c.Prefix+key, a, chunkBytes(a)+int64(len(key)))
}

func (c *ChunkCache) Drop(key string) { c.All.Drop(c.Prefix + key) }

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
