package codec

import (
	"context"

	"github.com/zarrgw/zarrgw/core/grid"
	"github.com/zarrgw/zarrgw/core/ndarray"
	"github.com/zarrgw/zarrgw/core/store"
)

// RangeReader reads parts of one stored value (one chunk or shard key).
// A missing value is an error wrapping store.ErrNotFound.
type RangeReader interface {
	// ReadRanges returns the bytes of each range, in order.
	ReadRanges(ctx context.Context, ranges []store.ByteRange) ([][]byte, error)
	// Capabilities of the store behind (suffix ranges, conditional writes).
	Capabilities() store.Capabilities
	// Size is the value's length (for stores without suffix ranges).
	Size(ctx context.Context) (int64, error)
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
