// Package arraycache keeps the arrays a dataset's requests open, so
// that a request for a small slice neither parses the array's metadata
// again nor builds its codecs again: an opened array holds its codecs'
// state between requests (the sharding codec's cache of shard indexes,
// its plans and the buffers it decodes into).
//
// A kept array is used only while the metadata documents it was opened
// from read the same, byte for byte, through the store it was opened
// from: for the gateway, the dataset's metadata cache, which a write
// through the gateway clears at once and which trusts a document changed
// underneath for cache_ttl at most. So a request sees exactly the
// metadata it would have parsed itself. What the array's codecs keep is
// confirmed by the data they read (a shard's index by the version of the
// shard's bytes read next).
package arraycache

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/zarrgw/zarrgw/core/array"
	"github.com/zarrgw/zarrgw/core/hierarchy"
	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/host/serve/server/cache"
)

// Bounds of the arrays a Cache keeps, and how long it keeps one at most
// (so that the state an array's codecs hold is let go of when the array
// is no longer read).
const (
	maxKeptArrays = 64
	keptArrayTTL  = time.Minute
)

// keptArray is an opened array and the metadata documents it was
// opened from, as read.
type keptArray struct {
	a    *array.Array
	docs []metaDoc
}

// metaDoc is a metadata document as read, or its absence.
type metaDoc struct {
	key    string
	data   []byte
	absent bool
}

// Cache keeps the arrays opened from one store with one set of options.
// Safe for concurrent use.
type Cache struct {
	s    store.Store
	opts array.Options
	kept *cache.Cache[*keptArray]
}

// New is a cache of the arrays of s, opened with opts.
func New(s store.Store, opts array.Options) *Cache {
	return &Cache{s: s, opts: opts, kept: cache.New[*keptArray](maxKeptArrays, keptArrayTTL)}
}

// Open opens the array at path, reusing the one opened before when its
// metadata documents still read the same. The array may be shared by
// concurrent requests: read and write through it, never Resize it or
// SetAttributes on it.
func (c *Cache) Open(ctx context.Context, path string) (*array.Array, error) {
	path, err := hierarchy.CleanPath(path)
	if err != nil {
		return nil, err
	}
	if k, ok := c.kept.Get(path); ok {
		same, err := c.unchanged(ctx, k.docs)
		if err != nil {
			return nil, err
		}
		if same {
			return k.a, nil
		}
		c.kept.Drop(path)
	}
	rec := newRecordingStore(c.s)
	n, err := hierarchy.Open(ctx, rec, path)
	if err != nil {
		return nil, err
	}
	if n.Array == nil {
		return nil, fmt.Errorf("%s is a group, not an array", n.Name())
	}
	a, err := array.New(ctx, c.s, n.Path, n.Array, c.opts)
	if err != nil {
		return nil, err
	}
	if docs, ok := rec.recorded(); ok {
		c.kept.Put(path, &keptArray{a: a, docs: docs}, 1)
	}
	return a, nil
}

// unchanged reports whether every document reads as it did.
func (c *Cache) unchanged(ctx context.Context, docs []metaDoc) (bool, error) {
	for _, d := range docs {
		v, err := c.s.Get(ctx, d.key, store.ByteRange{})
		switch {
		case errors.Is(err, store.ErrNotFound):
			if !d.absent {
				return false, nil
			}
		case err != nil:
			return false, fmt.Errorf("read %s: %w", d.key, err)
		case d.absent || !bytes.Equal(v.Data, d.data):
			return false, nil
		}
	}
	return true, nil
}

// recordingStore records the whole values hierarchy.Open reads (and
// those it finds missing). Anything else it asks of the store (a
// listing, a part of a value) makes what it opens depend on more than
// the documents, and the array is then not kept.
type recordingStore struct {
	store.Store // the dataset's store, behind a hook that notes every other call

	mu    sync.Mutex
	docs  []metaDoc
	other bool
}

func newRecordingStore(s store.Store) *recordingStore {
	r := &recordingStore{}
	r.Store = store.WithHook(s, func(ctx context.Context, op, _ string, call func(context.Context) error) error {
		if op != "get" {
			r.dependsOnMore()
		}
		return call(ctx)
	})
	return r
}

func (r *recordingStore) Get(ctx context.Context, key string, br store.ByteRange) (store.Value, error) {
	v, err := r.Store.Get(ctx, key, br)
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case br != (store.ByteRange{}):
		r.other = true
	case errors.Is(err, store.ErrNotFound):
		r.docs = append(r.docs, metaDoc{key: key, absent: true})
	case err == nil:
		r.docs = append(r.docs, metaDoc{key: key, data: bytes.Clone(v.Data)})
	}
	return v, err
}

func (r *recordingStore) dependsOnMore() {
	r.mu.Lock()
	r.other = true
	r.mu.Unlock()
}

// recorded returns the documents read, and false when the store was
// asked for anything else.
func (r *recordingStore) recorded() ([]metaDoc, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.docs, !r.other
}
