package references

import (
	"context"
	"iter"
	"sort"
	"strings"
	"sync/atomic"

	"github.com/zarrgw/zarrgw/core/store"
)

// Source is a reference set as the store reads it. The JSON forms are
// parsed whole into a *Set; the Parquet form is read a record file at a
// time, so that a set of millions of keys serves in bounded memory.
type Source interface {
	// Lookup returns key's reference and the extents of its target file
	// it may be read together with (nil for inline and whole-file
	// values; a Source may leave them nil when ctx carries no
	// store.ReadBatch, the only reader of them); ok is false when the
	// set has no such key.
	Lookup(ctx context.Context, key string) (ref Ref, ext *Extents, ok bool, err error)
	// List yields the keys starting with prefix, in no particular order
	// (store.Store.List's promise: the JSON forms yield them sorted, the
	// Parquet form its chunk keys in chunk order, since sorting them would
	// hold every key of a set of millions).
	List(ctx context.Context, prefix string) iter.Seq2[string, error]
}

// dirLister is a Source that can answer some listings of a directory
// without listing every key below it (handled false: it cannot).
type dirLister interface {
	ListDir(ctx context.Context, prefix string) (d store.Dir, handled bool, err error)
}

// Extents are byte ranges referenced in one target file, sorted: those a
// reader of several keys may fetch in one request. A Set has one per
// file; the Parquet form one per file and record file.
type Extents struct {
	URL    string
	ranges []extent

	grouped atomic.Pointer[grouping] // under the last bounds asked for
}

// grouping is the ranges of Extents grouped into runs under one pair of
// bounds.
type grouping struct {
	gap, block int64
	runs       []int    // index of each run's first range, ascending
	spans      []extent // each run's bytes, from its first range's start
}

type extent struct{ off, end int64 }

func newExtents(url string, ranges []extent) *Extents {
	sort.Slice(ranges, func(i, j int) bool {
		if ranges[i].off != ranges[j].off {
			return ranges[i].off < ranges[j].off
		}
		return ranges[i].end < ranges[j].end
	})
	return &Extents{URL: url, ranges: ranges}
}

// Run returns the bytes of the run holding r: r's neighbours grouped
// while the gap to the next is at most gap bytes and the run spans at
// most block bytes, so that every range belongs to exactly one run and
// concurrent readers agree on it. The grouping is made once per pair of
// bounds (a store reads its source with one pair).
//
// n is the number of ranges in the run (references to them), so that a
// reader knows when a run has served all it holds.
func (x *Extents) Run(r Ref, gap, block int64) (start, end int64, n int) {
	g := x.grouped.Load()
	if g == nil || g.gap != gap || g.block != block {
		g = x.group(gap, block)
		x.grouped.Store(g)
	}
	want := extent{r.Offset, r.Offset + r.Length}
	i := sort.Search(len(x.ranges), func(i int) bool {
		e := x.ranges[i]
		return e.off > want.off || e.off == want.off && e.end >= want.end
	})
	if i == len(x.ranges) || x.ranges[i] != want { // not one of them: read alone
		return want.off, want.end, 1
	}
	k := sort.Search(len(g.runs), func(k int) bool { return g.runs[k] > i }) - 1
	next := len(x.ranges)
	if k+1 < len(g.runs) {
		next = g.runs[k+1]
	}
	return g.spans[k].off, g.spans[k].end, next - g.runs[k]
}

func (x *Extents) group(gap, block int64) *grouping {
	g := &grouping{gap: gap, block: block}
	for i, e := range x.ranges {
		if n := len(g.spans); n > 0 {
			last := &g.spans[n-1]
			if e.off-last.end <= gap && max(last.end, e.end)-last.off <= block {
				last.end = max(last.end, e.end)
				continue
			}
		}
		g.runs = append(g.runs, i)
		g.spans = append(g.spans, e)
	}
	return g
}

// extentsByURL groups the ranged references of refs by target file.
func extentsByURL(refs iter.Seq[Ref]) map[string]*Extents {
	byURL := map[string][]extent{}
	for r := range refs {
		if !r.Inline() && r.Length >= 0 {
			byURL[r.URL] = append(byURL[r.URL], extent{r.Offset, r.Offset + r.Length})
		}
	}
	out := make(map[string]*Extents, len(byURL))
	for url, ranges := range byURL {
		out[url] = newExtents(url, ranges)
	}
	return out
}

// sortedList yields the keys of sorted starting with prefix.
func sortedList(ctx context.Context, sorted []string, prefix string) iter.Seq2[string, error] {
	return func(yield func(string, error) bool) {
		if err := store.ValidatePrefix(prefix); err != nil {
			yield("", err)
			return
		}
		for i := sort.SearchStrings(sorted, prefix); i < len(sorted) && strings.HasPrefix(sorted[i], prefix); i++ {
			if err := ctx.Err(); err != nil {
				yield("", err)
				return
			}
			if !yield(sorted[i], nil) {
				return
			}
		}
	}
}
