// Package zlibcodec is the numcodecs "zlib" codec: a zlib stream (RFC 1950,
// deflate with an Adler-32 trailer) holding the chunk.
package zlibcodec

import (
	"context"
	"encoding/json"
	"io"

	"github.com/klauspost/compress/zlib"

	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/plugins/codecs/internal/stream"
)

// format is zlib: levels -1..9 (default 1, as numcodecs; -1 is zlib's
// default compression); the Adler-32 trailer is verified.
var format = stream.Format{
	Name:    "numcodecs.zlib",
	Aliases: []string{"zlib"},
	URIs:    []string{"https://purl.org/zarr/spec/codec/zlib/1.0"},
	Levels:  stream.Levels{Min: -1, Max: 9, Default: 1, NumcodecsDefault: 1},
	NewWriter: func(level int) func(io.Writer) (stream.Writer, error) {
		return func(w io.Writer) (stream.Writer, error) { return zlib.NewWriterLevel(w, level) }
	},
	Readers: &stream.Readers{
		New:       func(src io.Reader) (io.Reader, error) { return zlib.NewReader(src) },
		Reset:     func(r, src io.Reader) error { return r.(zlib.Resetter).Reset(src, nil) },
		Expansion: 4,
	},
}

// Registration registers the codec as "numcodecs.zlib" and "zlib", and
// under its draft v3 URI.
var Registration = format.Registration()

// New builds the codec from {"level": -1..9}.
func New(_ context.Context, configuration json.RawMessage, _ codec.Resolver) (codec.Codec, error) {
	return format.New(configuration)
}
