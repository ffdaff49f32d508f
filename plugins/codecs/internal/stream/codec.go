package stream

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/extension"
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

// Format is what a stream codec's package says of its format: its names,
// its levels, and how to compress and decompress.
type Format struct {
	Name    string
	Aliases []string
	URIs    []string
	Levels  Levels
	// NewWriter returns the writers' constructor for a level.
	NewWriter func(level int) func(w io.Writer) (Writer, error)
	Readers   *Readers
}

// Registration registers the format's codec, its configuration schema
// derived from its levels.
func (f *Format) Registration() codec.Registration {
	schema := fmt.Sprintf(`{"type":"object","properties":{
	"level":{"type":"integer","minimum":%d,"maximum":%d,"default":%d}}}`, f.Levels.Min, f.Levels.Max, f.Levels.Default)
	return codec.Registration{
		Manifest: extension.Manifest{Kind: extension.Codec, Name: f.Name, Aliases: f.Aliases, URIs: f.URIs, ConfigSchema: json.RawMessage(schema)},
		New: func(_ context.Context, configuration json.RawMessage, _ codec.Resolver) (codec.Codec, error) {
			return f.New(configuration)
		},
	}
}

// New builds the codec from {"level": n}.
func (f *Format) New(configuration json.RawMessage) (codec.Codec, error) {
	name, levels := f.Name, f.Levels
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
	c := &Codec{name: name, level: level, readers: f.Readers}
	c.writers.New = f.NewWriter(level)
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
