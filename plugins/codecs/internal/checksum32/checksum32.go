// Package checksum32 implements the numcodecs family of 32-bit checksum
// codecs (crc32, adler32, crc32c): the checksum of the payload stored as 4
// little-endian bytes before ("start") or after ("end") the payload.
package checksum32

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"

	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/extension"
)

// Algorithm describes one checksum codec.
type Algorithm struct {
	// Name is the registered name; Aliases the other names.
	Name    string
	Aliases []string
	// Sum computes the checksum of a payload.
	Sum func([]byte) uint32
	// DefaultEnd is true when the checksum goes after the payload by default.
	DefaultEnd bool
	// Bare makes Configuration() return nil for the default location (v3
	// crc32c takes no configuration).
	Bare bool
}

// schema is the configuration every checksum codec takes.
const schema = `{"type":"object","properties":{
	"location":{"type":"string","enum":["start","end"]}}}`

// Registration returns the registry entry for alg.
func (alg Algorithm) Registration() codec.Registration {
	return codec.Registration{
		Manifest: extension.Manifest{Kind: extension.Codec, Name: alg.Name, Aliases: alg.Aliases, ConfigSchema: json.RawMessage(schema)},
		New:      alg.New,
	}
}

// New builds a codec from a configuration with an optional "location"
// ("start" or "end"); other keys, such as a numcodecs "id", are ignored.
func (alg Algorithm) New(_ context.Context, configuration json.RawMessage, _ codec.Resolver) (codec.Codec, error) {
	var cfg struct {
		Location *string `json:"location"`
	}
	if len(configuration) > 0 && string(configuration) != "null" {
		if err := json.Unmarshal(configuration, &cfg); err != nil {
			return nil, fmt.Errorf("%s: configuration: %w", alg.Name, err)
		}
	}
	c := &Codec{alg: alg, end: alg.DefaultEnd}
	if cfg.Location != nil {
		switch *cfg.Location {
		case "start":
			c.end = false
		case "end":
			c.end = true
		default:
			return nil, fmt.Errorf("%s: location must be \"start\" or \"end\", not %q", alg.Name, *cfg.Location)
		}
	}
	return c, nil
}

// Codec is a bytes->bytes checksum codec. It is stateless and safe for
// concurrent use.
type Codec struct {
	alg Algorithm
	end bool
}

func (c *Codec) Name() string { return c.alg.Name }

// Configuration returns the location, omitted where the v3 form has none.
func (c *Codec) Configuration() json.RawMessage {
	if c.alg.Bare && c.end == c.alg.DefaultEnd {
		return nil
	}
	if c.end {
		return json.RawMessage(`{"location":"end"}`)
	}
	return json.RawMessage(`{"location":"start"}`)
}

// EncodedSize implements codec.SizedCodec: four bytes more.
func (c *Codec) EncodedSize(_ context.Context, _ codec.Spec, decodedSize int64) (int64, bool) {
	return decodedSize + 4, true
}

// EncodeBytes returns a new buffer holding b and its checksum.
func (c *Codec) EncodeBytes(_ context.Context, _ codec.Spec, b []byte) ([]byte, error) {
	out := make([]byte, len(b)+4)
	sum := c.alg.Sum(b)
	if c.end {
		copy(out, b)
		binary.LittleEndian.PutUint32(out[len(b):], sum)
	} else {
		binary.LittleEndian.PutUint32(out, sum)
		copy(out[4:], b)
	}
	return out, nil
}

// DecodeBytes verifies the checksum and returns the payload, a sub-slice of
// b (no copy: the pipeline hands codecs buffers they may keep).
func (c *Codec) DecodeBytes(_ context.Context, in codec.Spec, b []byte) ([]byte, error) {
	if len(b) < 4 {
		return nil, fmt.Errorf("%s: %w: %d bytes is too short to hold a checksum", c.alg.Name, codec.ErrCorrupt, len(b))
	}
	payload, stored := b[4:], b[:4]
	if c.end {
		payload, stored = b[:len(b)-4], b[len(b)-4:]
	}
	if in.DecodedSize >= 0 && int64(len(payload)) != in.DecodedSize {
		return nil, fmt.Errorf("%s: %w: payload of %d bytes, want %d", c.alg.Name, codec.ErrCorrupt, len(payload), in.DecodedSize)
	}
	want := binary.LittleEndian.Uint32(stored)
	if got := c.alg.Sum(payload); got != want {
		return nil, fmt.Errorf("%s: %w: checksum mismatch: stored %#08x, computed %#08x", c.alg.Name, codec.ErrCorrupt, want, got)
	}
	return payload, nil
}
