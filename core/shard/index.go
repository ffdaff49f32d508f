// Package shard is the binary shard format shared by the sharding_indexed
// codec and the sharding storage transformer: many inner chunks stored in
// one value, located by an index of (offset, nbytes) pairs.
//
// The index lists every inner chunk of the shard's chunk grid ("chunks per
// shard") in C order, as little-endian uint64 pairs. An inner chunk that is
// not stored (it reads as the fill value) has both fields set to 2^64-1.
// Offsets are positions in the whole shard value.
//
// Malformed shards are errors wrapping codec.ErrCorrupt and never
// store.ErrNotFound, so corruption is never mistaken for missing data.
package shard

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"

	"github.com/zarrgw/zarrgw/core/codec"
)

// Entry locates one inner chunk: Length bytes from Offset.
type Entry struct {
	Offset, Length uint64
}

// EmptyEntry marks an inner chunk that is not stored.
var EmptyEntry = Entry{Offset: math.MaxUint64, Length: math.MaxUint64}

// Empty reports whether the entry marks a missing inner chunk.
func (e Entry) Empty() bool { return e == EmptyEntry }

// End is the offset just past the entry's bytes.
func (e Entry) End() uint64 { return e.Offset + e.Length }

// EntrySize is the size of one raw index entry.
const EntrySize = 16

// Index is a shard's table of inner chunks. Cached indexes are shared, so
// an Index must not be modified once it has been handed out; Clone first.
type Index struct {
	cps     []int
	entries []Entry
}

// NewIndex returns an index of the given chunks per shard with every entry
// empty.
func NewIndex(cps []int) *Index {
	n := Count(cps)
	ix := &Index{cps: slices.Clone(cps), entries: make([]Entry, n)}
	for i := range ix.entries {
		ix.entries[i] = EmptyEntry
	}
	return ix
}

// Count is the number of inner chunks of a shard: the product of cps.
func Count(cps []int) int {
	n := 1
	for _, c := range cps {
		n *= c
	}
	return n
}

// Len is the number of entries.
func (ix *Index) Len() int { return len(ix.entries) }

// ChunksPerShard is the shape of the inner chunk grid.
func (ix *Index) ChunksPerShard() []int { return ix.cps }

// At returns entry i (flat C-order position).
func (ix *Index) At(i int) Entry { return ix.entries[i] }

// Set replaces entry i.
func (ix *Index) Set(i int, e Entry) { ix.entries[i] = e }

// Clone returns a copy that may be modified.
func (ix *Index) Clone() *Index {
	return &Index{cps: ix.cps, entries: slices.Clone(ix.entries)}
}

// AllEmpty reports whether no inner chunk is stored.
func (ix *Index) AllEmpty() bool {
	for _, e := range ix.entries {
		if !e.Empty() {
			return false
		}
	}
	return true
}

// Flat is the C-order position of inner chunk coords.
func Flat(cps, coords []int) int {
	i := 0
	for d, c := range coords {
		i = i*cps[d] + c
	}
	return i
}

// Coords is the inverse of Flat.
func Coords(cps []int, i int) []int {
	out := make([]int, len(cps))
	for d := len(cps) - 1; d >= 0; d-- {
		out[d] = i % cps[d]
		i /= cps[d]
	}
	return out
}

// RawSize is the size of the raw (uncoded) index: 16 bytes per entry.
func RawSize(cps []int) int64 { return int64(Count(cps)) * EntrySize }

// AppendRaw appends the index as little-endian uint64 pairs.
func (ix *Index) AppendRaw(b []byte) []byte {
	for _, e := range ix.entries {
		b = binary.LittleEndian.AppendUint64(b, e.Offset)
		b = binary.LittleEndian.AppendUint64(b, e.Length)
	}
	return b
}

// DecodeRaw reads an index of little-endian uint64 pairs; b must hold
// exactly one entry per inner chunk.
func DecodeRaw(b []byte, cps []int) (*Index, error) {
	n := Count(cps)
	if int64(len(b)) != int64(n)*EntrySize {
		return nil, fmt.Errorf("%w: shard index of %d bytes, want %d for %d inner chunks", codec.ErrCorrupt, len(b), int64(n)*EntrySize, n)
	}
	ix := &Index{cps: slices.Clone(cps), entries: make([]Entry, n)}
	for i := range ix.entries {
		p := b[i*EntrySize:]
		ix.entries[i] = Entry{Offset: binary.LittleEndian.Uint64(p), Length: binary.LittleEndian.Uint64(p[8:])}
	}
	return ix, nil
}
