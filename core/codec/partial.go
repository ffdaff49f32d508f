package codec

import (
	"context"

	"github.com/zarrgw/zarrgw/core/grid"
	"github.com/zarrgw/zarrgw/core/ndarray"
	"github.com/zarrgw/zarrgw/core/store"
)

// RangeReader reads parts of one stored value (one chunk or shard key):
// what a partial decoder (sharding_indexed) and the shard format
// (core/shard) read through. A missing value is an error wrapping
// store.ErrNotFound.
type RangeReader interface {
	// ReadRanges returns the bytes of each range, in order, and the
	// version of the value they all came from ("" when the store keeps no
	// versions). Ranges that came from different versions are an error
	// wrapping store.ErrConflict.
	ReadRanges(ctx context.Context, ranges []store.ByteRange) ([][]byte, string, error)
	// SuffixRanges reports whether a suffix range is read without knowing
	// the value's size.
	SuffixRanges() bool
	// Size is the value's length (for stores without suffix ranges).
	Size(ctx context.Context) (int64, error)
	// Key names the value for caches of its layout (a shard's index),
	// which the version of the next read confirms; "" is not cached.
	Key() string
}

// WholeReader is implemented by range readers that can read the whole
// value into a caller's buffer, sparing partial decoders that need all of
// it (a whole shard) an allocation per read.
type WholeReader interface {
	// ReadWhole returns the whole value and its version: in buf when its
	// capacity holds the value, else in a new buffer.
	ReadWhole(ctx context.Context, buf []byte) ([]byte, string, error)
}

// PartialDecoder is implemented by array->bytes codecs that can decode a
// region of a chunk from byte ranges of its stored form, without reading
// all of it (sharding_indexed). The pipeline offers it only when the codec
// is the chain's sole codec.
type PartialDecoder interface {
	// DecodeRegion returns the elements of region (chunk-local spans, one
	// per dimension) as an array of shape region counts. A stored value that
	// does not exist is reported as store.ErrNotFound.
	DecodeRegion(ctx context.Context, in Spec, src RangeReader, region []grid.Span) (*ndarray.Array, error)
}

// LayoutDescriber is implemented by codecs whose chunks have a layout of
// their own worth showing (sharding_indexed: inner chunks and an index).
// `zarrgw inspect` asks through it, never by the codec's type, so a codec
// in a plugin describes itself as it does in process.
type LayoutDescriber interface {
	// DescribeLayout summarises the layout of a chunk of spec in.
	DescribeLayout(ctx context.Context, in Spec) (Layout, error)
	// Occupancy reads the stored chunk src and counts the inner chunks it
	// stores, of total. A chunk that is not stored wraps store.ErrNotFound.
	Occupancy(ctx context.Context, in Spec, src RangeReader) (stored, total int, err error)
}

// Layout is a codec's description of its chunks' layout.
type Layout struct {
	// Description is for people: "shard [64 64], inner [32 32] (...)".
	Description string
	// InnerChunks is how many inner chunks one chunk holds.
	InnerChunks int
}
