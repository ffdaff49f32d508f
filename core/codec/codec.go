// Package codec defines the three kinds of Zarr codec (array->array,
// array->bytes, bytes->bytes) and the pipeline that runs a chain of them.
//
// Codecs are reached only through these interfaces, and a codec may run in
// another process: every call carries the full Spec of its input, codecs keep
// no state between calls beyond their configuration, and nothing but the
// arguments and the results crosses the interface.
package codec

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/zarrgw/zarrgw/core/dtype"
	"github.com/zarrgw/zarrgw/core/extension"
	"github.com/zarrgw/zarrgw/core/ndarray"
)

// Kind says what a codec turns into what, in the encode direction.
type Kind = extension.CodecKind

const (
	ArrayToArray = extension.ArrayToArray
	ArrayToBytes = extension.ArrayToBytes
	BytesToBytes = extension.BytesToBytes
)

// Spec describes the array a codec stage works on: for array->array and
// array->bytes codecs the array they encode (and decode back into); for
// bytes->bytes codecs the array at the array->bytes boundary of the chain
// (blosc takes its typesize from it).
type Spec struct {
	DataType dtype.DataType
	Shape    []int
	// FillValue is one element in memory form (little-endian bytes, or the
	// bytes of a string), nil when the array has no fill value.
	FillValue []byte
	// DecodedSize is the exact length a bytes->bytes decode must produce, or
	// -1 when it is not known in advance.
	DecodedSize int64
	// MaxDecodedSize bounds any bytes->bytes decode output (decompression
	// bombs); decoders stop and fail beyond it. 0 means no bound.
	MaxDecodedSize int64
}

// Codec is implemented by every codec. What a codec turns into what is
// said once, by which of ArrayArray, ArrayBytes and BytesBytes it
// implements (see KindOf).
type Codec interface {
	// Name is the registered name written to metadata ("zstd", "bytes").
	Name() string
	// Configuration is the JSON object written as the codec's
	// "configuration" in v3 metadata; nil writes none.
	Configuration() json.RawMessage
}

// ArrayArray is an array->array codec (transpose, delta, ...).
type ArrayArray interface {
	Codec
	// OutputSpec derives the encoded array's spec from the input spec alone
	// (asking a codec in a plugin may start its process).
	OutputSpec(ctx context.Context, in Spec) (Spec, error)
	// EncodeArray encodes a, whose spec is in.
	EncodeArray(ctx context.Context, in Spec, a *ndarray.Array) (*ndarray.Array, error)
	// DecodeArray turns an encoded array back into an array of spec in.
	DecodeArray(ctx context.Context, in Spec, a *ndarray.Array) (*ndarray.Array, error)
}

// ArrayBytes is the array->bytes codec of a chain (bytes, vlen-utf8, sharding).
type ArrayBytes interface {
	Codec
	Encode(ctx context.Context, in Spec, a *ndarray.Array) ([]byte, error)
	// Decode returns an array of spec in; a short or malformed input is an
	// error, never a panic.
	Decode(ctx context.Context, in Spec, b []byte) (*ndarray.Array, error)
}

// BytesBytes is a bytes->bytes codec (compressors, checksums).
type BytesBytes interface {
	Codec
	EncodeBytes(ctx context.Context, in Spec, b []byte) ([]byte, error)
	DecodeBytes(ctx context.Context, in Spec, b []byte) ([]byte, error)
}

// SizedCodec is implemented by codecs whose encoded length follows from the
// decoded length alone (bytes: n*itemsize, crc32c: +4, transpose: same).
// For array codecs decodedSize is the in-memory size of the input array.
type SizedCodec interface {
	EncodedSize(ctx context.Context, in Spec, decodedSize int64) (int64, bool)
}

// KindOf is the kind of the codec interface c implements, or 0 when it
// implements none of them, or more than one (which would make its place in
// a chain ambiguous).
func KindOf(c Codec) Kind {
	var kinds []Kind
	if _, ok := c.(ArrayArray); ok {
		kinds = append(kinds, ArrayToArray)
	}
	if _, ok := c.(ArrayBytes); ok {
		kinds = append(kinds, ArrayToBytes)
	}
	if _, ok := c.(BytesBytes); ok {
		kinds = append(kinds, BytesToBytes)
	}
	if len(kinds) != 1 {
		return 0
	}
	return kinds[0]
}

// Factory builds a codec from its configuration. The resolver builds nested
// codecs (sharding's inner chains). ctx bounds the building, which for a
// codec in a plugin may start the plugin's process.
type Factory func(ctx context.Context, configuration json.RawMessage, r Resolver) (Codec, error)

// Resolver turns a codec name from metadata (a registered name, an alias
// such as a numcodecs id, or a spec URI) into a codec. Resolving may start
// a plugin process, so it takes a context.
type Resolver interface {
	Codec(ctx context.Context, name string, configuration json.RawMessage) (Codec, error)
}

// ErrUnavailable is wrapped by a Resolver when no implementation of a codec
// is available ("codec not available: blosc").
var ErrUnavailable = errors.New("codec not available")

// ErrCorrupt is wrapped by decoders when the encoded data is malformed,
// truncated, fails a checksum or would decode beyond its declared size.
var ErrCorrupt = errors.New("corrupt chunk data")
