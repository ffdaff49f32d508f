package shardtransformer

import (
	"context"
	"errors"
	"fmt"

	"golang.org/x/sync/errgroup"

	"github.com/zarrgw/zarrgw/core/shard"
	"github.com/zarrgw/zarrgw/core/store"
)

// edit changes the chunks of one shard (nil = not stored) read at version
// ver ("" if the shard does not exist). It reports whether anything
// changed; an error ends the update.
type edit func(chunks [][]byte, ver string) (changed bool, err error)

// Set stores one chunk: a read-modify-write of its shard. cond applies to
// the chunk: IfMatch compares with the shard's version (so any change to
// the shard since the caller read counts as a conflict, never a lost
// update), IfNoneMatch requires the chunk to be absent.
func (s *Store) Set(ctx context.Context, key string, data []byte, cond store.Condition) (string, error) {
	sk, pos, ok := s.locate(key)
	if !ok {
		return s.next.Set(ctx, key, data, cond)
	}
	if data == nil {
		data = []byte{}
	}
	ver, err := s.update(ctx, sk, setChunk(pos, data, cond))
	if err != nil {
		return "", wrap("set", key, sk, err)
	}
	return ver, nil
}

// setChunk is the edit that stores data at pos under cond.
func setChunk(pos int, data []byte, cond store.Condition) edit {
	return func(chunks [][]byte, ver string) (bool, error) {
		if cond.IfNoneMatch && chunks[pos] != nil {
			return false, fmt.Errorf("%w: key exists", store.ErrConflict)
		}
		if cond.IfMatch != "" && (chunks[pos] == nil || ver != cond.IfMatch) {
			return false, fmt.Errorf("%w: version is not %q", store.ErrConflict, cond.IfMatch)
		}
		chunks[pos] = data
		return true, nil
	}
}

// Erase removes one chunk from its shard; a shard left without chunks is
// removed (or, where writes are conditional, emptied: an erase cannot be
// made conditional, and a concurrent writer's chunk must not vanish).
func (s *Store) Erase(ctx context.Context, key string) error {
	sk, pos, ok := s.locate(key)
	if !ok {
		return s.next.Erase(ctx, key)
	}
	_, err := s.update(ctx, sk, func(chunks [][]byte, _ string) (bool, error) {
		changed := chunks[pos] != nil
		chunks[pos] = nil
		return changed, nil
	})
	if err != nil {
		return wrap("erase", key, sk, err)
	}
	return nil
}

// EraseMany removes chunks shard by shard. A shard every chunk of which
// goes is erased whole, with the keys that are not chunks, in one
// EraseMany of the store below (S3 then deletes a thousand shards a
// call), where writes are conditional: a writer of the shard in between
// finds its version gone and starts again on nothing, so no chunk it
// wrote vanishes and no erased chunk comes back. Where they are not, and
// for shards that keep chunks, each shard has one read-modify-write
// clearing all its chunks given, queued with this store's other updates
// of that shard.
func (s *Store) EraseMany(ctx context.Context, keys []string) error {
	var plain []string
	byShard := map[string]map[int]string{} // shard -> position -> a key
	var shards []string
	for _, key := range keys {
		sk, pos, ok := s.locate(key)
		if !ok {
			plain = append(plain, key)
			continue
		}
		if byShard[sk] == nil {
			byShard[sk] = map[int]string{}
			shards = append(shards, sk)
		}
		byShard[sk][pos] = key
	}
	var edited []string
	if s.next.Capabilities().ConditionalWrite {
		for _, sk := range shards {
			if len(byShard[sk]) == s.format.N() {
				plain = append(plain, sk)
				continue
			}
			edited = append(edited, sk)
		}
	} else {
		edited = shards
	}
	errs := make([]error, len(edited)+1)
	if len(plain) > 0 {
		err := s.next.EraseMany(ctx, plain)
		for _, k := range plain {
			s.reader.Cache.Forget(k) // a shard's layout, should k be one
		}
		if err != nil {
			errs[len(edited)] = fmt.Errorf("%s: %w", Name, err)
		}
	}
	var g errgroup.Group
	g.SetLimit(store.DefaultParallelism)
	for i, sk := range edited {
		g.Go(func() error {
			positions := byShard[sk]
			_, err := s.update(ctx, sk, func(chunks [][]byte, _ string) (bool, error) {
				changed := false
				for pos := range positions {
					changed = changed || chunks[pos] != nil
					chunks[pos] = nil
				}
				return changed, nil
			})
			if err != nil {
				errs[i] = fmt.Errorf("%d chunks: %w", len(positions), wrap("erase", anyKey(positions), sk, err))
			}
			return nil
		})
	}
	g.Wait()
	return errors.Join(errs...)
}

// anyKey is one key of a shard's batch, to name in an error.
func anyKey(m map[int]string) string {
	for _, k := range m {
		return k
	}
	return ""
}

// readShard reads a whole shard and splits it into its chunks.
func (s *Store) readShard(ctx context.Context, key string) ([][]byte, string, error) {
	chunks := make([][]byte, s.format.N())
	v, err := s.next.Get(ctx, key, store.ByteRange{})
	if errors.Is(err, store.ErrNotFound) {
		return chunks, "", nil
	}
	if err != nil {
		return nil, "", err
	}
	ix, err := s.format.Parse(ctx, v.Data)
	if err != nil {
		return nil, "", err
	}
	for i := range chunks {
		if e := ix.At(i); !e.Empty() {
			chunks[i] = shard.Chunk(v.Data, e)
		}
	}
	if v.Version == "" && s.next.Capabilities().ConditionalWrite {
		return nil, "", errors.New("the store returned no version for a conditional update")
	}
	return chunks, v.Version, nil
}

// commit stores the shard holding chunks; one holding none is erased, or
// emptied where writes are conditional.
func (s *Store) commit(ctx context.Context, key string, chunks [][]byte, cond store.Condition) (string, error) {
	empty := true
	for _, c := range chunks {
		empty = empty && c == nil
	}
	if empty && cond == (store.Condition{}) {
		return "", s.next.Erase(ctx, key)
	}
	b, err := s.format.Assemble(ctx, chunks, nil)
	if err != nil {
		return "", err
	}
	return s.next.Set(ctx, key, b, cond)
}
