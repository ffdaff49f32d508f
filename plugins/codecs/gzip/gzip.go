// Package gzipcodec is the v3 "gzip" codec (numcodecs gzip): a gzip member
// (RFC 1952) holding the chunk. Multi-member input is accepted.
package gzipcodec

import (
	"context"
	"encoding/json"
	"io"

	"github.com/klauspost/compress/gzip"

	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/extension"
	"github.com/zarrgw/zarrgw/plugins/codecs/internal/stream"
)

// Registration registers the codec as "gzip" and "numcodecs.gzip", and under its draft v3 URI.
var Registration = codec.Registration{
	Manifest: extension.Manifest{
		Kind:    extension.Codec,
		Name:    "gzip",
		Aliases: []string{"numcodecs.gzip"},
		URIs:    []string{"https://purl.org/zarr/spec/codec/gzip/1.0"},
		ConfigSchema: json.RawMessage(`{"type":"object","properties":{
	"level":{"type":"integer","minimum":0,"maximum":9,"default":5}}}`),
	},
	New: New,
}

// New builds the codec from {"level": 0..9}. A missing level is 5 in the v3
// form and 1 in the numcodecs form (recognised by its "id" key).
// Multi-member input is decoded whole.
func New(_ context.Context, configuration json.RawMessage, _ codec.Resolver) (codec.Codec, error) {
	return stream.New("gzip", configuration, stream.Levels{Min: 0, Max: 9, Default: 5, NumcodecsDefault: 1}, newWriter, &readers)
}

func newWriter(level int) func(io.Writer) (stream.Writer, error) {
	return func(w io.Writer) (stream.Writer, error) { return gzip.NewWriterLevel(w, level) }
}

var readers = stream.Readers{
	New:       func(src io.Reader) (io.Reader, error) { return gzip.NewReader(src) },
	Reset:     func(r, src io.Reader) error { return r.(*gzip.Reader).Reset(src) },
	Expansion: 4,
}
