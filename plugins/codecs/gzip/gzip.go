// Package gzipcodec is the v3 "gzip" codec (numcodecs gzip): a gzip member
// (RFC 1952) holding the chunk. Multi-member input is accepted.
package gzipcodec

import (
	"context"
	"encoding/json"
	"fmt"
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

// Codec is the gzip codec; safe for concurrent use.
type Codec struct {
	level   int
	writers stream.Writers // *gzip.Writer at this level
}

// New builds the codec from {"level": 0..9}. A missing level is 5 in the v3
// form and 1 in the numcodecs form (recognised by its "id" key).
func New(_ context.Context, configuration json.RawMessage, _ codec.Resolver) (codec.Codec, error) {
	var cfg struct {
		Level *int            `json:"level"`
		ID    json.RawMessage `json:"id"`
	}
	if len(configuration) > 0 && string(configuration) != "null" {
		if err := json.Unmarshal(configuration, &cfg); err != nil {
			return nil, fmt.Errorf("gzip: configuration: %w", err)
		}
	}
	level := 5
	if cfg.ID != nil {
		level = 1
	}
	if cfg.Level != nil {
		level = *cfg.Level
	}
	if level < 0 || level > 9 {
		return nil, fmt.Errorf("gzip: level %d out of range 0..9", level)
	}
	c := &Codec{level: level}
	c.writers.New = func(w io.Writer) (stream.Writer, error) { return gzip.NewWriterLevel(w, level) }
	return c, nil
}

func (c *Codec) Name() string { return "gzip" }

// Configuration returns {"level": n}.
func (c *Codec) Configuration() json.RawMessage {
	return json.RawMessage(fmt.Sprintf(`{"level":%d}`, c.level))
}

// EncodeBytes compresses b into one gzip member.
func (c *Codec) EncodeBytes(_ context.Context, _ codec.Spec, b []byte) ([]byte, error) {
	out, err := c.writers.Encode(b)
	if err != nil {
		return nil, fmt.Errorf("gzip: %w", err)
	}
	return out, nil
}

var readers = stream.Readers{
	New:       func(src io.Reader) (io.Reader, error) { return gzip.NewReader(src) },
	Reset:     func(r, src io.Reader) error { return r.(*gzip.Reader).Reset(src) },
	Expansion: 4,
}

// DecodeBytes decompresses every member of b, within the spec's size limits.
func (c *Codec) DecodeBytes(_ context.Context, in codec.Spec, b []byte) ([]byte, error) {
	out, err := readers.Decode(in, b)
	if err != nil {
		return nil, fmt.Errorf("gzip: %w", err)
	}
	return out, nil
}
