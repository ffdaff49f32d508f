// Package bz2codec is the numcodecs "bz2" codec: a bzip2 stream holding the
// chunk. Decoding uses the standard library; encoding dsnet/compress.
package bz2codec

import (
	"bytes"
	"compress/bzip2"
	"context"
	"encoding/json"
	"fmt"

	dsbzip2 "github.com/dsnet/compress/bzip2"

	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/extension"
	"github.com/zarrgw/zarrgw/plugins/codecs/internal/bounded"
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

// Codec is the bz2 codec; stateless and safe for concurrent use.
type Codec struct {
	level int
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
	return c, nil
}

func (c *Codec) Name() string { return "numcodecs.bz2" }

// Configuration returns {"level": n}.
func (c *Codec) Configuration() json.RawMessage {
	return json.RawMessage(fmt.Sprintf(`{"level":%d}`, c.level))
}

// EncodeBytes compresses b into one bzip2 stream (block size level*100k).
func (c *Codec) EncodeBytes(_ context.Context, _ codec.Spec, b []byte) ([]byte, error) {
	var out bytes.Buffer
	out.Grow(len(b)/2 + 64)
	w, err := dsbzip2.NewWriter(&out, &dsbzip2.WriterConfig{Level: c.level})
	if err != nil {
		return nil, fmt.Errorf("bz2: %w", err)
	}
	if _, err := w.Write(b); err != nil {
		return nil, fmt.Errorf("bz2: %w", err)
	}
	if err := w.Close(); err != nil {
		return nil, fmt.Errorf("bz2: %w", err)
	}
	return out.Bytes(), nil
}

// DecodeBytes decompresses b (concatenated streams too) within the spec's
// size limits. The standard library decoder verifies the block and stream
// CRCs.
func (c *Codec) DecodeBytes(_ context.Context, in codec.Spec, b []byte) ([]byte, error) {
	if len(b) == 0 {
		return nil, fmt.Errorf("bz2: %w: empty input", codec.ErrCorrupt)
	}
	out, err := bounded.ReadAll(bzip2.NewReader(bytes.NewReader(b)), in, 6*len(b))
	if err != nil {
		return nil, fmt.Errorf("bz2: %w", err)
	}
	return out, nil
}
