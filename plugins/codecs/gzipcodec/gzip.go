// Package gzipcodec is the v3 "gzip" codec (numcodecs gzip): a gzip member
// (RFC 1952) holding the chunk. Multi-member input is accepted.
package gzipcodec

import (
	"context"
	"encoding/json"
	"io"

	"github.com/klauspost/compress/gzip"

	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/plugins/codecs/internal/stream"
)

// format is gzip: a missing level is 5 in the v3 form and 1 in the
// numcodecs form (recognised by its "id" key); multi-member input is
// decoded whole.
var format = stream.Format{
	Name:    "gzip",
	Aliases: []string{"numcodecs.gzip"},
	URIs:    []string{"https://purl.org/zarr/spec/codec/gzip/1.0"},
	Levels:  stream.Levels{Min: 0, Max: 9, Default: 5, NumcodecsDefault: 1},
	NewWriter: func(level int) func(io.Writer) (stream.Writer, error) {
		return func(w io.Writer) (stream.Writer, error) { return gzip.NewWriterLevel(w, level) }
	},
	Readers: &stream.Readers{
		New:       func(src io.Reader) (io.Reader, error) { return gzip.NewReader(src) },
		Reset:     func(r, src io.Reader) error { return r.(*gzip.Reader).Reset(src) },
		Expansion: 4,
	},
}

// Registration registers the codec as "gzip" and "numcodecs.gzip", and
// under its draft v3 URI.
var Registration = format.Registration()

// New builds the codec from {"level": 0..9}.
func New(_ context.Context, configuration json.RawMessage, _ codec.Resolver) (codec.Codec, error) {
	return format.New(configuration)
}
