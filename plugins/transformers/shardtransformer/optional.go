package shardtransformer

import (
	"context"
	"errors"
	"io"
	"iter"
	"os"

	"github.com/zarrgw/zarrgw/core/shard"
	"github.com/zarrgw/zarrgw/core/store"
)

// The transformer's keys do not come in the order of the store below (the
// chunks of one shard are scattered among those of others: c/1/0, c/10/0,
// c/100/0), so it lists sorted by walking its own directories, and with
// sizes from its shards' indexes: both its own, whatever the store below
// lists. A chunk is a part of its shard, read by Get: only keys that pass
// through gain from a copy-free read below, which it shows only where the
// store below has one. It hands out no files: its chunks are parts of
// shards.

// optional is what the transformer claims of the optional operations.
func (s *Store) optional() store.Optional {
	return store.Optional{Into: store.OptionalOf(s.next).Into, Sorted: true, Info: true}
}

// OpenFile reports ErrUnsupported: a chunk is a part of its shard.
func (s *Store) OpenFile(ctx context.Context, key string, buf []byte) (*os.File, store.Info, error) {
	return store.NoOptional{}.OpenFile(ctx, key, buf)
}

// SetFrom reports ErrUnsupported without reading r: a chunk is written
// into its shard by Set.
func (s *Store) SetFrom(ctx context.Context, key string, r io.Reader, cond store.Condition) (string, error) {
	return store.NoOptional{}.SetFrom(ctx, key, r, cond)
}

// GetInto reads a whole value into dst when its size is len(dst): a key
// that passes through by the store below's own copy-free read, a chunk by
// Get and a copy.
func (s *Store) GetInto(ctx context.Context, key string, dst []byte) (bool, error) {
	if _, _, ok := s.locate(key); !ok {
		return store.GetInto(ctx, s.next, key, dst)
	}
	v, err := s.Get(ctx, key, store.ByteRange{})
	if err != nil || len(v.Data) != len(dst) {
		return false, err
	}
	copy(dst, v.Data)
	return true, nil
}

// ListSorted yields the keys below prefix after startAfter in byte order,
// walking the transformer's own directories: those wholly before
// startAfter are never listed.
func (s *Store) ListSorted(ctx context.Context, prefix, startAfter string) iter.Seq2[string, error] {
	return store.WalkSorted(ctx, s, prefix, startAfter)
}

// ListInfo lists as ListSorted does, with sizes and versions as Stat gives
// them: a chunk's from its shard's index, which listing its directory has
// just read (a Stat reads the index again for every chunk); a key that
// passes through from the store below's own listing with sizes where it
// has one, else from a Stat. A key erased in between is left out.
func (s *Store) ListInfo(ctx context.Context, prefix, startAfter string) iter.Seq2[store.Entry, error] {
	return func(yield func(store.Entry, error) bool) {
		below := s.passedInfo(ctx, prefix, startAfter)
		defer below.stop()
		for k, err := range s.ListSorted(ctx, prefix, startAfter) {
			if err != nil {
				yield(store.Entry{}, err)
				return
			}
			info, err := s.entryInfo(ctx, k, below)
			if errors.Is(err, store.ErrNotFound) {
				continue
			}
			if !yield(store.Entry{Key: k, Info: info}, err) || err != nil {
				return
			}
		}
	}
}

// entryInfo is what Stat says of a listed key: a chunk's from the index
// its listing read (cached), or read afresh where the cache has none.
func (s *Store) entryInfo(ctx context.Context, key string, below *passedInfo) (store.Info, error) {
	sk, pos, ok := s.locate(key)
	if !ok {
		return below.info(ctx, key)
	}
	ix, ver, cached := s.reader.Cache.Latest(sk)
	if !cached {
		var err error
		if ix, ver, err = s.reader.Index(ctx, store.KeyRanges{Store: s.next, Name: sk}); err != nil {
			return store.Info{}, wrap("list", key, sk, err)
		}
	}
	return chunkInfo(ix, ver, pos, "list", key)
}

// chunkInfo is the size of the chunk at pos of a shard and the shard's
// version; ErrNotFound where the shard does not hold it.
func chunkInfo(ix *shard.Index, ver string, pos int, op, key string) (store.Info, error) {
	e := ix.At(pos)
	if e.Empty() {
		return store.Info{}, notFound(op, key)
	}
	return store.Info{Size: int64(e.Length), Version: ver}, nil
}

// passedInfo gives the sizes of keys that pass through, asked for in byte
// order: from one listing with sizes of the store below, whose keys come
// in that order, where it lists so; from a Stat of each otherwise (its
// fallback would Stat every shard too). The listing starts at the first
// question, so a page of chunks alone costs none.
type passedInfo struct {
	next store.Store
	pull func() (store.Entry, error, bool)
	stop func()
	cur  store.Entry
	have bool
}

func (s *Store) passedInfo(ctx context.Context, prefix, startAfter string) *passedInfo {
	p := &passedInfo{next: s.next, stop: func() {}}
	if store.OptionalOf(s.next).Info {
		p.pull, p.stop = iter.Pull2(store.ListInfo(ctx, s.next, prefix, startAfter))
	}
	return p
}

// info returns the information of key, which sorts after every key asked
// for before. A key the listing lacks (written since it began) is Stat'ed.
func (p *passedInfo) info(ctx context.Context, key string) (store.Info, error) {
	for p.pull != nil && (!p.have || p.cur.Key < key) {
		e, err, ok := p.pull()
		if err != nil {
			p.pull = nil
			return store.Info{}, err
		}
		if !ok {
			p.pull = nil
			break
		}
		p.cur, p.have = e, true
	}
	if p.have && p.cur.Key == key {
		return p.cur.Info, nil
	}
	return p.next.Stat(ctx, key)
}
