package shard

import (
	"context"
	"fmt"

	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/store"
)

// Location says where a shard keeps its index.
type Location uint8

const (
	End   Location = iota // after the inner chunks (the default)
	Start                 // before them; offsets then start after the index
)

func (l Location) String() string {
	if l == Start {
		return "start"
	}
	return "end"
}

// Format is a shard layout: the inner chunk grid, the index codec and
// where the index lives.
type Format struct {
	CPS      []int // chunks per shard
	Index    IndexCodec
	Location Location
}

// N is the number of inner chunks per shard.
func (f *Format) N() int { return Count(f.CPS) }

// IndexRange is the request that fetches the index: a suffix of the
// index's size, or the prefix.
func (f *Format) IndexRange() store.ByteRange {
	if f.Location == Start {
		return store.Range(0, f.Index.Size())
	}
	return store.Last(f.Index.Size())
}

// indexRegion is where the index sits in a shard of size bytes (size < 0:
// unknown, in which case an end index cannot be placed).
func (f *Format) indexRegion(size, used int64) Region {
	if f.Location == Start {
		return Region{0, used}
	}
	if size < 0 {
		return Region{}
	}
	return Region{size - used, size}
}

// DecodeIndex decodes the index bytes fetched by IndexRange and validates
// it against the shard size (size < 0 when unknown).
func (f *Format) DecodeIndex(ctx context.Context, b []byte, size int64) (*Index, error) {
	ix, used, err := f.Index.Decode(ctx, b, f.Location)
	if err != nil {
		return nil, err
	}
	if err := ix.Validate(size, f.indexRegion(size, used)); err != nil {
		return nil, err
	}
	return ix, nil
}

// Parse reads and validates the index of a whole shard value.
func (f *Format) Parse(ctx context.Context, shard []byte) (*Index, error) {
	n := min(int64(len(shard)), f.Index.Size())
	b := shard[:n]
	if f.Location == End {
		b = shard[int64(len(shard))-n:]
	}
	return f.DecodeIndex(ctx, b, int64(len(shard)))
}

// Chunk returns the bytes of a validated entry within a whole shard.
func Chunk(shard []byte, e Entry) []byte {
	return shard[e.Offset:e.End():e.End()]
}

// Assemble builds a shard from encoded inner chunks (nil = not stored),
// laid out contiguously in the given order of flat positions (nil = C
// order), followed or preceded by the index.
func (f *Format) Assemble(ctx context.Context, chunks [][]byte, order []int) ([]byte, error) {
	if len(chunks) != f.N() {
		return nil, fmt.Errorf("assemble shard: %d inner chunks, want %d", len(chunks), f.N())
	}
	ix := NewIndex(f.CPS)
	total := f.Index.Size()
	for _, c := range chunks {
		if c != nil {
			total += int64(len(c))
		}
	}
	out := make([]byte, 0, total)
	if f.Location == Start {
		out = out[:f.Index.Size()] // the index goes here once offsets are known
	}
	visit(len(chunks), order, func(i int) {
		if c := chunks[i]; c != nil {
			ix.Set(i, Entry{Offset: uint64(len(out)), Length: uint64(len(c))})
			out = append(out, c...)
		}
	})
	idx, err := f.Index.Encode(ctx, ix)
	if err != nil {
		return nil, err
	}
	if int64(len(idx)) != f.Index.Size() {
		return nil, fmt.Errorf("assemble shard: %w: index encoded to %d bytes, want %d", codec.ErrCorrupt, len(idx), f.Index.Size())
	}
	if f.Location == Start {
		copy(out, idx)
		return out, nil
	}
	return append(out, idx...), nil
}

func visit(n int, order []int, fn func(i int)) {
	if order == nil {
		for i := range n {
			fn(i)
		}
		return
	}
	for _, i := range order {
		fn(i)
	}
}
