// Package zstdcodec is the "zstd" codec (registered in zarr-extensions;
// numcodecs zstd): one Zstandard frame (RFC 8878) holding the chunk.
package zstdcodec

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/klauspost/compress/zstd"

	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/extension"
)

// Registration registers the codec as "zstd" and "numcodecs.zstd", and under its draft v3 URI.
var Registration = codec.Registration{
	Manifest: extension.Manifest{
		Kind:    extension.Codec,
		Name:    "zstd",
		Aliases: []string{"numcodecs.zstd"},
		URIs:    []string{"https://purl.org/zarr/spec/codec/zstd/1.0"},
		ConfigSchema: json.RawMessage(`{"type":"object","properties":{
	"level":{"type":"integer","minimum":-131072,"maximum":22,"default":0},
	"checksum":{"type":"boolean","default":false}}}`),
	},
	New: New,
}

// Level bounds of the zstd library.
const (
	MinLevel = -131072
	MaxLevel = 22
)

// Codec is the zstd codec. Its encoder is built on first use and shared by
// all calls (EncodeAll is safe for concurrent use).
type Codec struct {
	level    int
	checksum bool

	encOnce sync.Once
	enc     *zstd.Encoder
	encErr  error
	// small encodes inputs below smallFrame bytes (see smallEncoder).
	smallOnce sync.Once
	small     *zstd.Encoder
	smallErr  error
}

// New builds the codec from {"level": n, "checksum": bool}; both are
// optional (level 0 = the library default, checksum false).
func New(_ context.Context, configuration json.RawMessage, _ codec.Resolver) (codec.Codec, error) {
	var cfg struct {
		Level    *int  `json:"level"`
		Checksum *bool `json:"checksum"`
	}
	if len(configuration) > 0 && string(configuration) != "null" {
		if err := json.Unmarshal(configuration, &cfg); err != nil {
			return nil, fmt.Errorf("zstd: configuration: %w", err)
		}
	}
	c := &Codec{}
	if cfg.Level != nil {
		c.level = *cfg.Level
	}
	if cfg.Checksum != nil {
		c.checksum = *cfg.Checksum
	}
	if c.level < MinLevel || c.level > MaxLevel {
		return nil, fmt.Errorf("zstd: level %d out of range %d..%d", c.level, MinLevel, MaxLevel)
	}
	return c, nil
}

func (c *Codec) Name() string { return "zstd" }

// Configuration returns {"level": n, "checksum": bool}, as zarr-python writes.
func (c *Codec) Configuration() json.RawMessage {
	return json.RawMessage(fmt.Sprintf(`{"level":%d,"checksum":%t}`, c.level, c.checksum))
}

// encoderLevel maps a zstd level to the library's speed classes. Level 0
// means zstd's default (3), which the library helper would map to fastest.
func encoderLevel(level int) zstd.EncoderLevel {
	if level == 0 {
		return zstd.SpeedDefault
	}
	return zstd.EncoderLevelFromZstd(level)
}

func (c *Codec) encoder() (*zstd.Encoder, error) {
	c.encOnce.Do(func() {
		c.enc, c.encErr = zstd.NewWriter(nil,
			zstd.WithEncoderLevel(encoderLevel(c.level)),
			zstd.WithEncoderCRC(c.checksum))
	})
	return c.enc, c.encErr
}

// smallEncoder writes single-segment frames: below 256 bytes that is the
// only frame form that records the content size.
func (c *Codec) smallEncoder() (*zstd.Encoder, error) {
	c.smallOnce.Do(func() {
		c.small, c.smallErr = zstd.NewWriter(nil,
			zstd.WithEncoderLevel(encoderLevel(c.level)),
			zstd.WithEncoderCRC(c.checksum),
			zstd.WithSingleSegment(true))
	})
	return c.small, c.smallErr
}

// smallFrame is the input size below which frames only record their
// content size in single-segment form.
const smallFrame = 256

// EncodeBytes writes a single frame that always records its content size,
// which numcodecs before 0.13 needs to decode it. (Larger inputs keep the
// library's own segment choice: single-segment frames of hundreds of MiB
// would ask decoders for a window that large.)
func (c *Codec) EncodeBytes(_ context.Context, _ codec.Spec, b []byte) ([]byte, error) {
	enc, err := c.encoder()
	if len(b) < smallFrame {
		enc, err = c.smallEncoder()
	}
	if err != nil {
		return nil, fmt.Errorf("zstd: %w", err)
	}
	return enc.EncodeAll(b, make([]byte, 0, len(b)/2+64)), nil
}
