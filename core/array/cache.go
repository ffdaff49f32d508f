package array

import (
	"context"

	"github.com/zarrgw/zarrgw/core/grid"
	"github.com/zarrgw/zarrgw/core/ndarray"
)

// ChunkCache keeps decoded chunks between reads, such as the gateway's
// bounded cache. A chunk handed to Put is never modified afterwards, and
// one returned by Get must not be; nil stands for a chunk that is not
// stored (it reads as the fill value).
type ChunkCache interface {
	Get(key string) (*ndarray.Array, bool)
	Put(key string, chunk *ndarray.Array)
	Drop(key string)
}

// cachedReadChunks is the most chunks a read may touch and still go
// through the chunk cache: small reads (a tile, a few rows) repeat and
// gain from it; a large read would only push everything else out, and
// copying through cached chunks costs it the paths that decode straight
// into the output.
const cachedReadChunks = 64

// cacheable reports whether a read of these projections uses the cache.
func (a *Array) cacheable(projections []grid.Projection) bool {
	return a.opts.Chunks != nil && len(projections) <= cachedReadChunks && a.partialDecoder() == nil
}

// readCached copies a chunk's part of a selection from the cache, reading
// and caching the whole chunk on a miss.
func (a *Array) readCached(ctx context.Context, out *ndarray.Array, p grid.Projection) error {
	key := a.ChunkKey(p.Chunk)
	chunk, ok := a.opts.Chunks.Get(key)
	if !ok {
		var err error
		if chunk, err = a.ReadChunk(ctx, p.Chunk); err != nil {
			return err
		}
		a.opts.Chunks.Put(key, chunk)
	}
	if chunk == nil {
		ndarray.FillRegion(out, p.Out, a.fill())
		return nil
	}
	return ndarray.CopyRegion(out, p.Out, chunk, p.InChunk)
}

// dropCached forgets the cached chunks a write touches.
func (a *Array) dropCached(projections []grid.Projection) {
	if a.opts.Chunks == nil {
		return
	}
	for _, p := range projections {
		a.opts.Chunks.Drop(a.ChunkKey(p.Chunk))
	}
}
