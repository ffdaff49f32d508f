package stream

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/zarrgw/zarrgw/core/codec"
)

// Codec is a bytes->bytes codec that stores a chunk as one compressed
// stream at a compression level (gzip, zlib, bz2); safe for concurrent use.
type Codec struct {
	name    string
	level   int
	writers Writers
	readers *Readers
}

// Levels are a format's compression levels: the range, and the level a
// configuration without one means (numcodecs' documents, which carry an
// "id", may default differently from v3's).
type Levels struct {
	Min, Max                  int
	Default, NumcodecsDefault int
}

// New builds the codec name from {"level": n}, compressing with writers
// newWriter makes at that level and decompressing with readers.
func New(name string, configuration json.RawMessage, levels Levels, newWriter func(level int) func(w io.Writer) (Writer, error), readers *Readers) (*Codec, error) {
	var cfg struct {
		Level *int            `json:"level"`
		ID    json.RawMessage `json:"id"`
	}
	if len(configuration) > 0 && string(configuration) != "null" {
		if err := json.Unmarshal(configuration, &cfg); err != nil {
			return nil, fmt.Errorf("%s: configuration: %w", name, err)
		}
	}
	level := levels.Default
	if cfg.ID != nil {
		level = levels.NumcodecsDefault
	}
	if cfg.Level != nil {
		level = *cfg.Level
	}
	if level < levels.Min || level > levels.Max {
		return nil, fmt.Errorf("%s: level %d out of range %d..%d", name, level, levels.Min, levels.Max)
	}
	c := &Codec{name: name, level: level, readers: readers}
	c.writers.New = newWriter(level)
	return c, nil
}

func (c *Codec) Name() string { return c.name }

// Configuration returns {"level": n}.
func (c *Codec) Configuration() json.RawMessage {
	return json.RawMessage(fmt.Sprintf(`{"level":%d}`, c.level))
}

// EncodeBytes compresses b into one stream.
func (c *Codec) EncodeBytes(_ context.Context, _ codec.Spec, b []byte) ([]byte, error) {
	out, err := c.writers.Encode(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", c.name, err)
	}
	return out, nil
}

// DecodeBytes decompresses b within the spec's size limits.
func (c *Codec) DecodeBytes(_ context.Context, in codec.Spec, b []byte) ([]byte, error) {
	if len(b) == 0 {
		return nil, fmt.Errorf("%s: %w: empty input", c.name, codec.ErrCorrupt)
	}
	out, err := c.readers.Decode(in, b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", c.name, err)
	}
	return out, nil
}
