package shardtransformer

import (
	"context"
	"errors"
	"iter"
	"slices"
	"strings"

	"github.com/zarrgw/zarrgw/core/store"
)

// List yields every key starting with prefix: the keys that pass through,
// and for every shard the keys of the chunks its index lists. A prefix
// that ends inside chunk ids ("foo/c/96/") lists the shards it maps to.
func (s *Store) List(ctx context.Context, prefix string) iter.Seq2[string, error] {
	return func(yield func(string, error) bool) {
		if err := store.ValidatePrefix(prefix); err != nil {
			yield("", err)
			return
		}
		seen := map[string]bool{}
		for _, u := range s.underlying(prefix) {
			listed, err := store.ListAll(ctx, s.next, u)
			if err != nil {
				yield("", err)
				return
			}
			for _, key := range listed {
				keys, err := s.expand(ctx, key)
				if err != nil {
					yield("", err)
					return
				}
				for _, k := range keys {
					if strings.HasPrefix(k, prefix) && !seen[k] {
						seen[k] = true
						if !yield(k, nil) {
							return
						}
					}
				}
			}
		}
	}
}

// underlying is the prefixes of the next store to list for prefix: the
// prefix itself and, for every reading of it as the start of chunk ids,
// the shard prefix it maps to.
func (s *Store) underlying(prefix string) []string {
	out := []string{prefix}
	for _, p := range s.keys.partials(prefix) {
		sc, _ := s.shardOf(p.coords)
		if u := s.keys.partialKey(p.prefix, sc); !slices.Contains(out, u) {
			out = append(out, u)
		}
	}
	return out
}

// expand returns the chunk keys a shard key holds, or the key itself if
// it is not a shard key. A shard that vanished since it was listed holds
// nothing.
func (s *Store) expand(ctx context.Context, key string) ([]string, error) {
	prefix, sc, ok := s.keys.split(key)
	if !ok {
		return []string{key}, nil
	}
	ix, _, err := s.reader.Index(ctx, store.KeyRanges{Store: s.next, Name: key})
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, wrap("list", key, key, err)
	}
	var out []string
	for pos := range ix.Len() {
		if !ix.At(pos).Empty() {
			out = append(out, s.keys.key(prefix, s.chunkCoords(sc, pos)))
		}
	}
	return out, nil
}

// ListDir lists the keys and child prefixes directly under prefix. Shards
// listed as keys contribute the chunks they hold; shard prefixes
// contribute every chunk prefix they cover, whether or not a chunk exists
// there (as the spec allows: listing such a prefix may come back empty).
func (s *Store) ListDir(ctx context.Context, prefix string) (store.Dir, error) {
	if err := store.ValidatePrefix(prefix); err != nil {
		return store.Dir{}, err
	}
	keys, prefixes := map[string]bool{}, map[string]bool{}
	for _, u := range s.underlying(prefix) {
		d, err := s.next.ListDir(ctx, u)
		if err != nil {
			return store.Dir{}, err
		}
		for _, k := range d.Keys {
			expanded, err := s.expand(ctx, k)
			if err != nil {
				return store.Dir{}, err
			}
			for _, e := range expanded {
				if direct(e, prefix, false) {
					keys[e] = true
				}
			}
		}
		for _, p := range d.Prefixes {
			for _, e := range s.expandPrefix(p, prefix) {
				if direct(e, prefix, true) {
					prefixes[e] = true
				}
			}
		}
	}
	return store.Dir{Keys: sorted(keys), Prefixes: sorted(prefixes)}, nil
}

// expandPrefix maps a child prefix of the next store to the chunk
// prefixes it covers when it is a shard prefix; the leading coordinates
// come from the prefix being listed (listed), the last one ranges over
// the shard.
func (s *Store) expandPrefix(p, listed string) []string {
	readings := s.keys.partials(p)
	var out []string
	if len(readings) == 0 || s.keys.layout.AnyDepth {
		// Not a shard prefix, or (anywhere below data/root) perhaps
		// also a group's.
		out = append(out, p)
	}
	for _, sp := range readings {
		n := len(sp.coords)
		if n == 0 {
			out = append(out, s.keys.partialKey(sp.prefix, nil))
			continue
		}
		lead, ok := s.leading(listed, sp, n-1)
		if !ok {
			continue
		}
		for i := range s.cps[n-1] {
			c := append(slices.Clone(lead), sp.coords[n-1]*s.cps[n-1]+i)
			out = append(out, s.keys.partialKey(sp.prefix, c))
		}
	}
	return out
}

// leading returns the first n chunk coordinates that the listed prefix
// fixes within the shard prefix sp, or false if it fixes none there.
func (s *Store) leading(listed string, sp partial, n int) ([]int, bool) {
	if n == 0 {
		return []int{}, true
	}
	for _, lp := range s.keys.partials(listed) {
		if lp.prefix != sp.prefix || len(lp.coords) != n {
			continue
		}
		ok := true
		for d, c := range lp.coords {
			ok = ok && c/s.cps[d] == sp.coords[d]
		}
		if ok {
			return lp.coords, true
		}
	}
	return nil, false
}

// direct reports whether key lies directly under prefix (a child prefix:
// one segment and its "/").
func direct(key, prefix string, isPrefix bool) bool {
	if !strings.HasPrefix(key, prefix) || key == prefix {
		return false
	}
	rest := key[len(prefix):]
	if isPrefix {
		return strings.IndexByte(rest, '/') == len(rest)-1
	}
	return !strings.Contains(rest, "/")
}

func sorted(set map[string]bool) []string {
	out := make([]string, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// ErasePrefix removes every key starting with prefix. Shards wholly under
// the prefix go in one erase of the next store; a prefix that ends inside
// chunk ids removes the matching chunks from each shard it touches.
func (s *Store) ErasePrefix(ctx context.Context, prefix string) error {
	if err := store.ValidatePrefix(prefix); err != nil {
		return err
	}
	under := s.underlying(prefix)
	if len(under) == 1 {
		return s.next.ErasePrefix(ctx, prefix)
	}
	for _, u := range under {
		listed, err := store.ListAll(ctx, s.next, u)
		if err != nil {
			return err
		}
		for _, key := range listed {
			if err := s.erasePart(ctx, key, prefix); err != nil {
				return err
			}
		}
	}
	return nil
}

// erasePart removes from a listed key what lies under prefix: the chunks
// of a shard whose keys start with it, or a passed-through key.
func (s *Store) erasePart(ctx context.Context, key, prefix string) error {
	arrayPrefix, sc, ok := s.keys.split(key)
	if !ok {
		if strings.HasPrefix(key, prefix) {
			return s.next.Erase(ctx, key)
		}
		return nil
	}
	_, err := s.update(ctx, key, func(chunks [][]byte, _ string) (bool, error) {
		changed := false
		for pos, c := range chunks {
			if c != nil && strings.HasPrefix(s.keys.key(arrayPrefix, s.chunkCoords(sc, pos)), prefix) {
				chunks[pos], changed = nil, true
			}
		}
		return changed, nil
	})
	if err != nil {
		return wrap("erase prefix", prefix, key, err)
	}
	return nil
}
