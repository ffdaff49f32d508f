package references

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/zarrgw/zarrgw/core/store"
)

// Coalescing: when the store is read as part of a read batch (the chunks
// of a selection, store.ReadBatch), a ranged value is read with its
// neighbours in the same file (Extents.Run) in one request, and the run
// is kept in the batch for its other keys. Outside a batch (one key over
// the key API) only the value's own range is read, so a random read
// never pays for its neighbours. Files on a local file system
// (store.Optional.File) are read a range at a time: there a request is a
// pread, and a run would only add a copy.

// Default bounds: fsspec's max_gap (64 kB) and a run of at most 4 MiB,
// so that a batch holding a few runs stays small beside its output.
const (
	DefaultMaxGap   = 64 << 10
	DefaultMaxBlock = 4 << 20
	// runsPerBatch is how many runs' bytes one batch keeps at most. A
	// run is dropped as soon as its ranges are read, so a batch holds
	// few; those left are runs a reader has taken a chunk of and not yet
	// read (one per parallel reader) and the run at the readers' front.
	// Keeping that many avoids fetching a run twice; more readers than
	// this only costs a second fetch, never wrong data.
	runsPerBatch = 16
)

// runs is what one batch keeps: the runs fetched or being fetched. A run
// is dropped once each of its ranges has been read (a selection's chunks
// are read once each), or, for runs a batch reads only part of, when the
// bytes kept pass the budget, oldest first.
type runs struct {
	mu     sync.Mutex
	budget int64
	used   int64
	byKey  map[runKey]*run
	order  []runKey // fetch order, oldest first
}

type runKey struct {
	url        string
	start, end int64
}

type run struct {
	left    int // ranges not yet read in this batch
	done    chan struct{}
	data    []byte
	version string // the target's
	err     error
}

func (s *Store) batchRuns(b *store.ReadBatch) *runs {
	return b.Memo(s, func() any {
		return &runs{budget: runsPerBatch * s.maxBlock, byKey: map[runKey]*run{}}
	}).(*runs)
}

// coalesced reads r (key's reference) through the run holding it, fetched
// once per batch: ok is false when r is best read alone.
func (s *Store) coalesced(ctx context.Context, b *store.ReadBatch, key string, r Ref, ext *Extents, target store.Store, tkey string) (store.Value, bool, error) {
	if local := store.OptionalOf(target).File; s.maxBlock <= 0 || local {
		// A file on a local file system costs a pread per range: reading
		// its neighbours too would only add a copy.
		return store.Value{}, false, nil
	}
	start, end, n := ext.Run(r, s.maxGap, s.maxBlock)
	if end-start <= r.Length {
		return store.Value{}, false, nil
	}
	rs := s.batchRuns(b)
	k := runKey{r.URL, start, end}
	rs.mu.Lock()
	f, ok := rs.byKey[k]
	if !ok {
		f = &run{left: n, done: make(chan struct{})}
		rs.add(k, f)
	}
	if f.left--; f.left == 0 {
		rs.drop(k, f)
	}
	rs.mu.Unlock()
	if !ok {
		v, err := target.Get(ctx, tkey, store.Range(start, end-start))
		f.data, f.version, f.err = v.Data, v.Version, err
		close(f.done) // a failure is kept too: the batch's other keys in the run fail alike
	}
	select {
	case <-f.done:
	case <-ctx.Done():
		return store.Value{}, true, ctx.Err()
	}
	if f.err != nil {
		return store.Value{}, true, targetError(key, r, f.err)
	}
	lo, hi := r.Offset-start, r.Offset-start+r.Length
	if int64(len(f.data)) < hi {
		return store.Value{}, true, shortTarget(key, fmt.Errorf("references: key %q: target %s: bytes %d-%d are past its end (it ends at %d)",
			key, r.URL, r.Offset, r.Offset+r.Length-1, start+int64(len(f.data))))
	}
	// A copy: the run's bytes are shared by its keys, and a reader may
	// decode in place.
	return store.Value{Data: append([]byte(nil), f.data[lo:hi]...), Version: rangeVersion(f.version, r)}, true, nil
}

// add keeps f, dropping the oldest runs while the batch's bytes pass its
// budget (a dropped run still serves the readers holding it).
func (rs *runs) add(k runKey, f *run) {
	rs.byKey[k] = f
	rs.order = append(rs.order, k)
	rs.used += k.end - k.start
	for rs.used > rs.budget && len(rs.order) > 1 {
		old := rs.order[0]
		rs.drop(old, rs.byKey[old])
	}
}

// drop forgets the run f at k (its readers keep their reference to it).
func (rs *runs) drop(k runKey, f *run) {
	if rs.byKey[k] != f {
		return
	}
	delete(rs.byKey, k)
	rs.used -= k.end - k.start
	if i := slices.Index(rs.order, k); i >= 0 {
		rs.order = slices.Delete(rs.order, i, i+1)
	}
}
