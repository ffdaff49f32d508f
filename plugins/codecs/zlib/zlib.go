// Package zlibcodec is the numcodecs "zlib" codec: a zlib stream (RFC 1950,
// deflate with an Adler-32 trailer) holding the chunk.
package zlibcodec

import (
	"context"
	"encoding/json"
	"fmt"
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

// Codec is the zlib codec; safe for concurrent use.
type Codec struct {
	level   int
	writers stream.Writers // *zlib.Writer at this level
}

// New builds the codec from {"level": -1..9} (default 1, as numcodecs;
// -1 is zlib's default compression).
func New(_ context.Context, configuration json.RawMessage, _ codec.Resolver) (codec.Codec, error) {
	cfg := struct {
		Level *int `json:"level"`
	}{}
	if len(configuration) > 0 && string(configuration) != "null" {
		if err := json.Unmarshal(configuration, &cfg); err != nil {
			return nil, fmt.Errorf("zlib: configuration: %w", err)
		}
	}
	level := 1
	if cfg.Level != nil {
		level = *cfg.Level
	}
	if level < -1 || level > 9 {
		return nil, fmt.Errorf("zlib: level %d out of range -1..9", level)
	}
	c := &Codec{level: level}
	c.writers.New = func(w io.Writer) (stream.Writer, error) { return zlib.NewWriterLevel(w, level) }
	return c, nil
}

func (c *Codec) Name() string { return "numcodecs.zlib" }

// Configuration returns {"level": n}.
func (c *Codec) Configuration() json.RawMessage {
	return json.RawMessage(fmt.Sprintf(`{"level":%d}`, c.level))
}

// EncodeBytes compresses b into one zlib stream.
func (c *Codec) EncodeBytes(_ context.Context, _ codec.Spec, b []byte) ([]byte, error) {
	out, err := c.writers.Encode(b)
	if err != nil {
		return nil, fmt.Errorf("zlib: %w", err)
	}
	return out, nil
}

var readers = stream.Readers{
	New:       func(src io.Reader) (io.Reader, error) { return zlib.NewReader(src) },
	Reset:     func(r, src io.Reader) error { return r.(zlib.Resetter).Reset(src, nil) },
	Expansion: 4,
}

// DecodeBytes decompresses b within the spec's size limits; the Adler-32
// trailer is verified.
func (c *Codec) DecodeBytes(_ context.Context, in codec.Spec, b []byte) ([]byte, error) {
	out, err := readers.Decode(in, b)
	if err != nil {
		return nil, fmt.Errorf("zlib: %w", err)
	}
	return out, nil
}
