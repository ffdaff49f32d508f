package store

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"slices"
	"strings"

	"golang.org/x/sync/errgroup"
)

// DefaultParallelism is used by the batch helpers when asked for less than
// one worker.
const DefaultParallelism = 8

// Request is one read of GetMany.
type Request struct {
	Key   string
	Range ByteRange
}

// Result is the outcome of one Request: a value or an error (which wraps
// ErrNotFound when the key is missing).
type Result struct {
	Value Value
	Err   error
}

// GetMany reads every request with at most parallelism concurrent Gets and
// returns the results in request order, as one read batch. Keys may
// repeat. Requests not started when ctx is cancelled fail with ctx's
// error.
func GetMany(ctx context.Context, s Store, reqs []Request, parallelism int) []Result {
	ctx = WithReadBatch(ctx)
	results := make([]Result, len(reqs))
	forEach(len(reqs), parallelism, func(i int) {
		req := reqs[i]
		if err := ctx.Err(); err != nil {
			results[i].Err = fmt.Errorf("get %q: %w", req.Key, err)
			return
		}
		results[i].Value, results[i].Err = s.Get(ctx, req.Key, req.Range)
	})
	return results
}

// EraseEach erases keys with at most parallelism concurrent Erases: the
// EraseMany of stores that have no batch delete of their own. Missing
// keys are not errors; every failure is reported, joined (each Erase's
// error names its key).
func EraseEach(ctx context.Context, s Store, keys []string, parallelism int) error {
	errs := make([]error, len(keys))
	forEach(len(keys), parallelism, func(i int) {
		if err := ctx.Err(); err != nil {
			errs[i] = fmt.Errorf("erase %q: %w", keys[i], err)
			return
		}
		errs[i] = s.Erase(ctx, keys[i])
	})
	return errors.Join(errs...)
}

// forEach calls fn(i) for i in [0, n) on at most parallelism goroutines
// at a time, so a batch of thousands of keys never becomes thousands of
// concurrent calls. It returns when every call has returned.
func forEach(n, parallelism int, fn func(i int)) {
	if parallelism < 1 {
		parallelism = DefaultParallelism
	}
	var g errgroup.Group
	g.SetLimit(parallelism)
	for i := range n {
		g.Go(func() error {
			fn(i)
			return nil
		})
	}
	g.Wait()
}

// ListAll returns every key starting with prefix, sorted.
func ListAll(ctx context.Context, s Store, prefix string) ([]string, error) {
	keys, err := Collect(s.List(ctx, prefix))
	if err != nil {
		return nil, err
	}
	slices.Sort(keys)
	return keys, nil
}

// Collect gathers the keys of a listing, up to its first error.
func Collect(seq iter.Seq2[string, error]) ([]string, error) {
	var keys []string
	for key, err := range seq {
		if err != nil {
			return keys, err
		}
		keys = append(keys, key)
	}
	return keys, nil
}

// ListDirFromList derives ListDir from List for stores that can only list
// flat: keys with no "/" after prefix are keys, the rest contribute their
// first segment as a child prefix.
func ListDirFromList(ctx context.Context, s Store, prefix string) (Dir, error) {
	if err := ValidatePrefix(prefix); err != nil {
		return Dir{}, err
	}
	return DirOf(prefix, s.List(ctx, prefix))
}

// DirOf is the listing of prefix ("" or ending in "/") made of keys, the
// keys under it in any order: those directly under it, and the child
// prefixes of the others.
func DirOf(prefix string, keys iter.Seq2[string, error]) (Dir, error) {
	var dir Dir
	seen := make(map[string]struct{})
	for key, err := range keys {
		if err != nil {
			return Dir{}, err
		}
		rest, ok := strings.CutPrefix(key, prefix)
		if !ok {
			continue // a store that over-reports; not ours to list
		}
		i := strings.IndexByte(rest, '/')
		if i < 0 {
			dir.Keys = append(dir.Keys, key)
			continue
		}
		child := key[:len(prefix)+i+1]
		if _, dup := seen[child]; !dup {
			seen[child] = struct{}{}
			dir.Prefixes = append(dir.Prefixes, child)
		}
	}
	slices.Sort(dir.Keys)
	slices.Sort(dir.Prefixes)
	return dir, nil
}

// ReadRanges reads ranges of one key and returns their bytes with the
// version of the value they all came from: ranges read from different
// versions (the value was replaced between two reads) are an error
// wrapping ErrConflict. A missing key wraps ErrNotFound.
func ReadRanges(ctx context.Context, s Store, key string, ranges []ByteRange) ([][]byte, string, error) {
	reqs := make([]Request, len(ranges))
	for i, r := range ranges {
		reqs[i] = Request{Key: key, Range: r}
	}
	out := make([][]byte, len(ranges))
	version := ""
	for i, res := range GetMany(ctx, s, reqs, 0) {
		if res.Err != nil {
			return nil, "", fmt.Errorf("read %s %s: %w", key, ranges[i], res.Err)
		}
		if i > 0 && res.Value.Version != version {
			return nil, "", fmt.Errorf("read %s: %w: the value changed between two ranges", key, ErrConflict)
		}
		version, out[i] = res.Value.Version, res.Value.Data
	}
	return out, version, nil
}

// KeyRanges reads ranges of one key of a store: the codec.RangeReader
// partial decoders and the shard format read a stored chunk or shard with.
type KeyRanges struct {
	Store Store
	Name  string
}

// ReadRanges reads ranges of the key, all from one version (ReadRanges).
func (k KeyRanges) ReadRanges(ctx context.Context, ranges []ByteRange) ([][]byte, string, error) {
	return ReadRanges(ctx, k.Store, k.Name, ranges)
}

// SuffixRanges reports whether the store reads suffix ranges.
func (k KeyRanges) SuffixRanges() bool { return k.Store.Capabilities().SuffixRanges }

// Key is the key, which caches of the value's layout know it by.
func (k KeyRanges) Key() string { return k.Name }

// Size is the value's length.
func (k KeyRanges) Size(ctx context.Context) (int64, error) {
	info, err := k.Store.Stat(ctx, k.Name)
	if err != nil {
		return 0, fmt.Errorf("stat %s: %w", k.Name, err)
	}
	return info.Size, nil
}
