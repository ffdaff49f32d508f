// Package bz2codec is the numcodecs "bz2" codec: a bzip2 stream holding the
// chunk. Decoding uses the standard library; encoding dsnet/compress.
package bz2codec

import (
	"compress/bzip2"
	"context"
	"encoding/json"
	"io"

	dsbzip2 "github.com/dsnet/compress/bzip2"

	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/plugins/codecs/internal/stream"
)

// format is bzip2: levels 1..9 (default 1, as numcodecs), block size
// level*100k; concatenated streams decode whole. Decoding uses the
// standard library, which verifies the block and stream CRCs; its reader
// cannot be reset, so none is pooled.
var format = stream.Format{
	Name:    "numcodecs.bz2",
	Aliases: []string{"bz2"},
	URIs:    []string{"https://purl.org/zarr/spec/codec/bz2/1.0"},
	Levels:  stream.Levels{Min: 1, Max: 9, Default: 1, NumcodecsDefault: 1},
	NewWriter: func(level int) func(io.Writer) (stream.Writer, error) {
		return func(w io.Writer) (stream.Writer, error) {
			bw, err := dsbzip2.NewWriter(w, &dsbzip2.WriterConfig{Level: level})
			return writer{bw}, err
		}
	},
	Readers: &stream.Readers{
		New:       func(src io.Reader) (io.Reader, error) { return bzip2.NewReader(src), nil },
		Expansion: 6,
	},
}

// Registration registers the codec as "numcodecs.bz2" and "bz2", and
// under its draft v3 URI.
var Registration = format.Registration()

// New builds the codec from {"level": 1..9}.
func New(_ context.Context, configuration json.RawMessage, _ codec.Resolver) (codec.Codec, error) {
	return format.New(configuration)
}

// writer adapts dsnet's writer, whose Reset reports an error it never
// has for a writer that closed cleanly, to stream.Writer.
type writer struct{ *dsbzip2.Writer }

func (w writer) Reset(out io.Writer) { _ = w.Writer.Reset(out) }
