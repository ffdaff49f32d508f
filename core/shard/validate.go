package shard

import (
	"fmt"
	"math"
	"sort"

	"github.com/zarrgw/zarrgw/core/codec"
)

// Region is a byte range [Start, End) of a shard.
type Region struct {
	Start, End int64
}

// Validate checks that every stored entry lies inside a shard of size
// bytes (size < 0: unknown, checked later by short reads), outside the
// index region, and that no two entries overlap. A shard that fails is
// corrupt: decoding it could hand one chunk's bytes to another, or read
// the index as data.
func (ix *Index) Validate(size int64, index Region) error {
	type span struct {
		i          int
		start, end uint64
	}
	spans := make([]span, 0, len(ix.entries))
	for i, e := range ix.entries {
		if e.Empty() {
			continue
		}
		if e.Offset > math.MaxInt64 || e.Length > math.MaxInt64-e.Offset {
			return fmt.Errorf("%w: shard index entry %d (offset %d, nbytes %d) is out of range", codec.ErrCorrupt, i, e.Offset, e.Length)
		}
		if size >= 0 && e.End() > uint64(size) {
			return fmt.Errorf("%w: shard index entry %d (offset %d, nbytes %d) reaches past the end of the %d-byte shard", codec.ErrCorrupt, i, e.Offset, e.Length, size)
		}
		if e.Length > 0 && int64(e.Offset) < index.End && int64(e.End()) > index.Start {
			return fmt.Errorf("%w: shard index entry %d (offset %d, nbytes %d) overlaps the index at bytes %d-%d", codec.ErrCorrupt, i, e.Offset, e.Length, index.Start, index.End)
		}
		if e.Length > 0 {
			spans = append(spans, span{i, e.Offset, e.End()})
		}
	}
	sort.Slice(spans, func(a, b int) bool { return spans[a].start < spans[b].start })
	for k := 1; k < len(spans); k++ {
		if prev, cur := spans[k-1], spans[k]; cur.start < prev.end {
			return fmt.Errorf("%w: shard index entries %d and %d overlap (bytes %d-%d and %d-%d)", codec.ErrCorrupt, prev.i, cur.i, prev.start, prev.end, cur.start, cur.end)
		}
	}
	return nil
}
