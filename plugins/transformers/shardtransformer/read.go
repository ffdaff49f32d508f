package shardtransformer

import (
	"context"

	"github.com/zarrgw/zarrgw/core/shard"
	"github.com/zarrgw/zarrgw/core/store"
)

// Get returns a chunk, or part of it, from its shard: the index (from the
// cache when the version of the chunk's bytes confirms it), then the
// chunk's byte range. The version is the shard's.
func (s *Store) Get(ctx context.Context, key string, r store.ByteRange) (store.Value, error) {
	sk, pos, ok := s.locate(key)
	if !ok {
		return s.next.Get(ctx, key, r)
	}
	data, ver, err := s.reader.Read(ctx, store.KeyRanges{Store: s.next, Name: sk}, []shard.Request{{Chunk: pos, Range: r}})
	if err != nil {
		return store.Value{}, wrap("get", key, sk, err)
	}
	if data[0] == nil {
		return store.Value{}, notFound("get", key)
	}
	return store.Value{Data: data[0], Version: ver}, nil
}

// Stat returns a chunk's length, from its shard's index, and the shard's
// version.
func (s *Store) Stat(ctx context.Context, key string) (store.Info, error) {
	sk, pos, ok := s.locate(key)
	if !ok {
		return s.next.Stat(ctx, key)
	}
	ix, ver, err := s.reader.Index(ctx, store.KeyRanges{Store: s.next, Name: sk})
	if err != nil {
		return store.Info{}, wrap("stat", key, sk, err)
	}
	return chunkInfo(ix, ver, pos, "stat", key)
}
