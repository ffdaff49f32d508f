// Package bz2codec is the numcodecs "bz2" codec: a bzip2 stream holding the
// chunk. Decoding uses the standard library; encoding dsnet/compress.
package bz2codec

import (
	"compress/bzip2"
	"context"
	"encoding/json"
	"fmt"
	"io"

	dsbzip2 "github.com/dsnet/compress/bzip2"

	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/extension"
	"github.com/zarrgw/zarrgw/plugins/codecs/internal/stream"
)

// Registration registers the codec as "numcodecs.bz2" and "bz2", and under its draft v3 URI.
var Registration = codec.Registration{
	Manifest: extension.Manifest{
		Kind:    extension.Codec,
		Name:    "numcodecs.bz2",
		Aliases: []string{"bz2"},
		URIs:    []string{"https://purl.org/zarr/spec/codec/bz2/1.0"},
		ConfigSchema: json.RawMessage(`{"type":"object","properties":{
	"level":{"type":"integer","minimum":1,"maximum":9,"default":1}}}`),
	},
	New: New,
}

// Codec is the bz2 codec; safe for concurrent use.
type Codec struct {
	level   int
	writers stream.Writers // *dsbzip2.Writer at this level
}

// New builds the codec from {"level": 1..9} (default 1, as numcodecs).
func New(_ context.Context, configuration json.RawMessage, _ codec.Resolver) (codec.Codec, error) {
	var cfg struct {
		Level *int `json:"level"`
	}
	if len(configuration) > 0 && string(configuration) != "null" {
		if err := json.Unmarshal(configuration, &cfg); err != nil {
			return nil, fmt.Errorf("bz2: configuration: %w", err)
		}
	}
	c := &Codec{level: 1}
	if cfg.Level != nil {
		c.level = *cfg.Level
	}
	if c.level < 1 || c.level > 9 {
		return nil, fmt.Errorf("bz2: level %d out of range 1..9", c.level)
	}
	c.writers.New = func(w io.Writer) (stream.Writer, error) {
		bw, err := dsbzip2.NewWriter(w, &dsbzip2.WriterConfig{Level: c.level})
		return writer{bw}, err
	}
	return c, nil
}

func (c *Codec) Name() string { return "numcodecs.bz2" }

// Configuration returns {"level": n}.
func (c *Codec) Configuration() json.RawMessage {
	return json.RawMessage(fmt.Sprintf(`{"level":%d}`, c.level))
}

// writer adapts dsnet's writer, whose Reset reports an error it never
// has for a writer that closed cleanly, to stream.Writer.
type writer struct{ *dsbzip2.Writer }

func (w writer) Reset(out io.Writer) { _ = w.Writer.Reset(out) }

// EncodeBytes compresses b into one bzip2 stream (block size level*100k).
func (c *Codec) EncodeBytes(_ context.Context, _ codec.Spec, b []byte) ([]byte, error) {
	out, err := c.writers.Encode(b)
	if err != nil {
		return nil, fmt.Errorf("bz2: %w", err)
	}
	return out, nil
}

// readers decode with the standard library, which verifies the block and
// stream CRCs; its reader cannot be reset, so none is pooled.
var readers = stream.Readers{
	New:       func(src io.Reader) (io.Reader, error) { return bzip2.NewReader(src), nil },
	Expansion: 6,
}

// DecodeBytes decompresses b (concatenated streams too) within the spec's
// size limits.
func (c *Codec) DecodeBytes(_ context.Context, in codec.Spec, b []byte) ([]byte, error) {
	if len(b) == 0 {
		return nil, fmt.Errorf("bz2: %w: empty input", codec.ErrCorrupt)
	}
	out, err := readers.Decode(in, b)
	if err != nil {
		return nil, fmt.Errorf("bz2: %w", err)
	}
	return out, nil
}
