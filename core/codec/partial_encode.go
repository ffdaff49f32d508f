package codec

import (
	"context"

	"github.com/zarrgw/zarrgw/core/grid"
	"github.com/zarrgw/zarrgw/core/ndarray"
)

// PartialEncoder is implemented by array->bytes codecs that can update a
// region of a stored chunk without decoding and re-encoding all of it
// (sharding_indexed keeps the encoded bytes of the inner chunks a write
// does not touch). Like PartialDecoder it is used only when the codec is
// the chain's sole codec; the caller still commits the result with a
// conditional write of the version old was read at.
type PartialEncoder interface {
	// EncodeRegion returns the new stored form of a chunk whose current
	// stored form is old (nil when the chunk is not stored), with the
	// elements of region (chunk-local spans) set to the elements of src
	// selected by srcSel. empty reports that every element of the result
	// is the fill value.
	EncodeRegion(ctx context.Context, in Spec, old []byte, region []grid.Span, src *ndarray.Array, srcSel []grid.Span) (enc []byte, empty bool, err error)
}

// PartialDecoderInto is a PartialDecoder that decodes straight into the
// caller's array, saving the copy of an intermediate region array.
type PartialDecoderInto interface {
	// DecodeRegionInto decodes the elements of region (chunk-local spans)
	// into the elements of dst selected by dstSel (the same counts). A
	// stored value that does not exist is reported as store.ErrNotFound
	// before dst is touched.
	DecodeRegionInto(ctx context.Context, in Spec, src RangeReader, region []grid.Span, dst *ndarray.Array, dstSel []grid.Span) error
}
