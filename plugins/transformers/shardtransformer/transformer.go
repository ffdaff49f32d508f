// Package shardtransformer is the sharding storage transformer v1.0
// (sharding-storage-transformer-v1.0.txt, digest §3): a store that keeps
// many chunks in one value of the store below it. Chunk keys are mapped to
// shard keys by floor-dividing the chunk's grid position by
// chunks_per_shard, keeping the prefix and separator (c96/18 -> c3/9 for
// [32, 2]); a shard holds its chunks' bytes followed by an index of raw
// little-endian (offset, nbytes) pairs. Every other key passes through.
//
// Writing one chunk is a read-modify-write of its shard, committed with a
// conditional write of the version read where the store below supports
// it, and retried on conflict; concurrent writers of one shard in one
// process are merged into one read-modify-write (batch.go).
package shardtransformer

import (
	"errors"
	"fmt"
	"math"
	"sync"

	"github.com/zarrgw/zarrgw/core/checked"
	"github.com/zarrgw/zarrgw/core/shard"
	"github.com/zarrgw/zarrgw/core/store"
)

// Name is the transformer's registered name.
const Name = "sharding"

// Aliases are the other names found in metadata: the spec URI, the
// spelling of the spec's configuration example, and zarr-python 2's.
var Aliases = []string{
	"https://purl.org/zarr/spec/extensions/storage-transformers/sharding/1.0",
	"https://purl.org/zarr/spec/extensions/storage_transformers/sharding/1.0",
	"https://purl.org/zarr/spec/storage_transformers/sharding/1.0",
}

// Options are runtime knobs.
type Options struct {
	// Coalescing merges nearby chunk reads (zero value: the default).
	Coalescing shard.Coalescing
	// IndexCacheBytes bounds the cache of shard indexes (0 = 8 MiB,
	// negative = no cache).
	IndexCacheBytes int64
}

// maxConflictRetries bounds the read-modify-write attempts of one shard.
const maxConflictRetries = 64

// Store is the transformer: a store.Store over the next store.
type Store struct {
	next   store.Store
	keys   keys
	cps    []int
	format *shard.Format
	reader *shard.Reader

	qmu    sync.Mutex
	queues map[string]*shardQueue // shards being updated, by key
}

var _ store.Store = (*Store)(nil)

// New wraps next with default options. The result reads into buffers
// (store.Optional.Into) only where next does.
func New(next store.Store, layout Layout, chunksPerShard []int) (store.Store, error) {
	s, err := NewWith(next, layout, chunksPerShard, Options{})
	if err != nil {
		return nil, err
	}
	return s, nil
}

// NewWith wraps next: chunk keys of layout are stored in shards of
// chunksPerShard chunks (one count per array dimension). The *Store has
// every optional interface; New shows only those it has over next.
func NewWith(next store.Store, layout Layout, chunksPerShard []int, opts Options) (*Store, error) {
	for _, n := range chunksPerShard {
		if n <= 0 {
			return nil, fmt.Errorf("%s: chunks_per_shard %v: counts must be positive", Name, chunksPerShard)
		}
	}
	// the index is 16 bytes per chunk, and read whole
	if n, ok := checked.Product(chunksPerShard); !ok || n > math.MaxInt64/shard.EntrySize {
		return nil, fmt.Errorf("%s: chunks_per_shard %v: a shard's index would be beyond a 64-bit size", Name, chunksPerShard)
	}
	k, err := newKeys(layout, len(chunksPerShard))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", Name, err)
	}
	cps := append([]int(nil), chunksPerShard...)
	s := &Store{next: next, keys: k, cps: cps, queues: map[string]*shardQueue{}}
	s.format = &shard.Format{CPS: cps, Index: shard.NewRawIndex(cps), Location: shard.End}
	s.reader = &shard.Reader{Format: s.format, Coalescing: opts.Coalescing}
	if s.reader.Coalescing == (shard.Coalescing{}) {
		s.reader.Coalescing = shard.DefaultCoalescing
	}
	switch {
	case opts.IndexCacheBytes == 0:
		s.reader.Cache = shard.NewCache(8 << 20)
	case opts.IndexCacheBytes > 0:
		s.reader.Cache = shard.NewCache(opts.IndexCacheBytes)
	}
	return s, nil
}

// Capabilities are the next store's; ranges of chunks are always served
// (suffixes too: the index gives each chunk's length). A chunk's version
// is its shard's, no MD5 of the chunk's bytes.
func (s *Store) Capabilities() store.Capabilities {
	c := s.next.Capabilities()
	c.Ranges, c.SuffixRanges = c.Read, c.Read
	c.MD5Versions = false
	c.Optional = s.optional()
	return c
}

// Close closes the next store: the transformer owns the stack below it.
func (s *Store) Close() error { return s.next.Close() }

// locate maps a chunk key to its shard key and its flat position in the
// shard; ok is false for keys that are not chunk keys.
func (s *Store) locate(key string) (shardKey string, pos int, ok bool) {
	prefix, coords, ok := s.keys.split(key)
	if !ok {
		return "", 0, false
	}
	sc, inner := s.shardOf(coords)
	return s.keys.key(prefix, sc), shard.Flat(s.cps, inner), true
}

// shardOf splits chunk coords into shard coords and coords in the shard.
func (s *Store) shardOf(coords []int) (sc, inner []int) {
	sc, inner = make([]int, len(coords)), make([]int, len(coords))
	for d, c := range coords {
		sc[d], inner[d] = c/s.cps[d], c%s.cps[d]
	}
	return sc, inner
}

// chunkCoords is the grid position of flat position pos of shard sc.
func (s *Store) chunkCoords(sc []int, pos int) []int {
	inner := shard.Coords(s.cps, pos)
	for d := range inner {
		inner[d] += sc[d] * s.cps[d]
	}
	return inner
}

// notFound reports a chunk that its shard does not hold.
func notFound(op, key string) error {
	return fmt.Errorf("%s: %s %q: %w", Name, op, key, store.ErrNotFound)
}

// wrap adds the chunk and shard keys to an error, keeping what it wraps.
func wrap(op, key, shardKey string, err error) error {
	if errors.Is(err, store.ErrNotFound) {
		return fmt.Errorf("%s: %s %q: %w", Name, op, key, err)
	}
	return fmt.Errorf("%s: %s %q (shard %q): %w", Name, op, key, shardKey, err)
}
