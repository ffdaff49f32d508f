// Package zlibcodec is the numcodecs "zlib" codec: a zlib stream (RFC 1950,
// deflate with an Adler-32 trailer) holding the chunk.
package zlibcodec

import (
	"context"
	"encoding/json"
	"io"

	"github.com/klauspost/compress/zlib"

	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/extension"
	"github.com/zarrgw/zarrgw/plugins/codecs/internal/stream"
)

// Registration registers the codec as "numcodecs.zlib" and "zlib", and under its draft v3 URI.
var Registration = codec.Registration{
	Manifest: extension.Manifest{
		Kind:    extension.Codec,
		Name:    "numcodecs.zlib",
		Aliases: []string{"zlib"},
		URIs:    []string{"https://purl.org/zarr/spec/codec/zlib/1.0"},
		ConfigSchema: json.RawMessage(`{"type":"object","properties":{
	"level":{"type":"integer","minimum":-1,"maximum":9,"default":1}}}`),
	},
	New: New,
}

// New builds the codec from {"level": -1..9} (default 1, as numcodecs;
// -1 is zlib's default compression). The Adler-32 trailer is verified.
func New(_ context.Context, configuration json.RawMessage, _ codec.Resolver) (codec.Codec, error) {
	return stream.New("numcodecs.zlib", configuration, stream.Levels{Min: -1, Max: 9, Default: 1, NumcodecsDefault: 1}, newWriter, &readers)
}

func newWriter(level int) func(io.Writer) (stream.Writer, error) {
	return func(w io.Writer) (stream.Writer, error) { return zlib.NewWriterLevel(w, level) }
}

var readers = stream.Readers{
	New:       func(src io.Reader) (io.Reader, error) { return zlib.NewReader(src) },
	Reset:     func(r, src io.Reader) error { return r.(zlib.Resetter).Reset(src, nil) },
	Expansion: 4,
}
