// Package conditional is the conditional codec of the zarr-extensions
// registry: a bytes->bytes codec wrapping a list of bytes->bytes codecs
// that each chunk may or may not go through, as a bit mask in a header
// before the chunk says (bit i set: codec i was applied).
//
// The spec leaves the choice to the writer. zarrgw applies the whole list
// when that makes the chunk smaller and none of it otherwise (the spec's
// compress_if_smaller over the list), so an incompressible chunk is
// stored as it is, one header longer.
package conditional

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/extension"
	"github.com/zarrgw/zarrgw/plugins/codecs/internal/codecconfig"
)

// Name is the registered name.
const Name = "conditional"

// Bounds on the configuration: the mask is held in 64 bits, and the
// header, reserved bits included, is at most MaxHeaderBits long.
const (
	MaxCodecs     = 64
	MaxHeaderBits = 4096
)

// Registration registers the codec as "conditional".
var Registration = codec.Registration{
	Manifest: extension.Manifest{
		Kind: extension.Codec,
		Name: Name,
		ConfigSchema: json.RawMessage(`{"type":"object","required":["codecs"],"additionalProperties":false,"properties":{
	"codecs":{"type":"array","maxItems":64,"description":"bytes->bytes codecs applied or skipped per chunk"},
	"header_bits":{"type":"integer","minimum":8,"maximum":4096,"multipleOf":8}}}`),
	},
	New: New,
}

// Codec is the codec; immutable and safe for concurrent use.
type Codec struct {
	config      json.RawMessage
	codecs      []codec.BytesBytes
	headerBytes int
}

// New builds the codec and its nested codecs (through r).
func New(ctx context.Context, configuration json.RawMessage, r codec.Resolver) (codec.Codec, error) {
	var cfg struct {
		Codecs     json.RawMessage `json:"codecs"`
		HeaderBits *int            `json:"header_bits"`
	}
	raw, err := codecconfig.Decode(Name, configuration, &cfg)
	if err != nil {
		return nil, err
	}
	exts, err := codecconfig.Codecs(Name, cfg.Codecs)
	if err != nil {
		return nil, err
	}
	if len(exts) > MaxCodecs {
		return nil, fmt.Errorf("%s: codecs: %d codecs, at most %d", Name, len(exts), MaxCodecs)
	}
	c := &Codec{config: raw, headerBytes: (len(exts) + 7) / 8}
	if c.headerBytes == 0 {
		c.headerBytes = 1 // no codecs still gets a (zero) mask byte
	}
	if h := cfg.HeaderBits; h != nil {
		if *h%8 != 0 || *h < len(exts) || *h <= 0 || *h > MaxHeaderBits {
			return nil, fmt.Errorf("%s: header_bits %d: must be a positive multiple of 8, at least the %d codecs and at most %d", Name, *h, len(exts), MaxHeaderBits)
		}
		c.headerBytes = *h / 8
	}
	for i, e := range exts {
		nested, err := r.Codec(ctx, e.Name, e.Configuration)
		if err != nil {
			return nil, fmt.Errorf("%s: codecs[%d]: %w", Name, i, err)
		}
		bb, ok := nested.(codec.BytesBytes)
		if !ok || codec.KindOf(nested) != codec.BytesToBytes {
			return nil, fmt.Errorf("%s: codecs[%d]: %s is not a bytes->bytes codec", Name, i, e.Name)
		}
		c.codecs = append(c.codecs, bb)
	}
	return c, nil
}

func (c *Codec) Name() string { return Name }

// Configuration returns the configuration as given.
func (c *Codec) Configuration() json.RawMessage { return c.config }

// EncodeBytes applies every nested codec and keeps the result when it is
// smaller than b; otherwise b is stored as it is.
func (c *Codec) EncodeBytes(ctx context.Context, in codec.Spec, b []byte) ([]byte, error) {
	enc := b
	for i, n := range c.codecs {
		s := in
		if i > 0 {
			s.DecodedSize = -1
		}
		var err error
		if enc, err = n.EncodeBytes(ctx, s, enc); err != nil {
			return nil, fmt.Errorf("%s: codecs[%d] %s: %w", Name, i, n.Name(), err)
		}
	}
	mask := uint64(1)<<len(c.codecs) - 1
	if len(c.codecs) == 0 || len(enc) >= len(b) {
		enc, mask = b, 0
	}
	out := make([]byte, c.headerBytes+len(enc))
	for i := 0; i < c.headerBytes && i < 8; i++ {
		out[i] = byte(mask >> (8 * i))
	}
	copy(out[c.headerBytes:], enc)
	return out, nil
}

// DecodeBytes reads the mask and undoes the codecs it names, last first.
func (c *Codec) DecodeBytes(ctx context.Context, in codec.Spec, b []byte) ([]byte, error) {
	if len(b) < c.headerBytes {
		return nil, fmt.Errorf("%s: %w: %d bytes, shorter than the %d-byte header", Name, codec.ErrCorrupt, len(b), c.headerBytes)
	}
	var mask uint64
	for i, h := range b[:c.headerBytes] {
		if i >= 8 {
			if h != 0 {
				return nil, fmt.Errorf("%s: %w: header sets bits beyond the %d codecs", Name, codec.ErrCorrupt, len(c.codecs))
			}
			continue
		}
		mask |= uint64(h) << (8 * i)
	}
	if len(c.codecs) < 64 && mask>>len(c.codecs) != 0 {
		return nil, fmt.Errorf("%s: %w: header %#x sets bits beyond the %d codecs", Name, codec.ErrCorrupt, mask, len(c.codecs))
	}
	out := b[c.headerBytes:]
	lowest := -1
	for i := range c.codecs {
		if mask&(1<<i) != 0 {
			lowest = i
			break
		}
	}
	for i := len(c.codecs) - 1; i >= 0; i-- {
		if mask&(1<<i) == 0 {
			continue
		}
		s := in
		if i != lowest {
			s.DecodedSize = -1 // only the last decode's size is known
		}
		var err error
		if out, err = c.codecs[i].DecodeBytes(ctx, s, out); err != nil {
			return nil, fmt.Errorf("%s: codecs[%d] %s: %w", Name, i, c.codecs[i].Name(), err)
		}
		if s.MaxDecodedSize > 0 && int64(len(out)) > s.MaxDecodedSize {
			return nil, fmt.Errorf("%s: %w: codecs[%d] decoded %d bytes, more than %d", Name, codec.ErrCorrupt, i, len(out), s.MaxDecodedSize)
		}
	}
	if lowest < 0 {
		out = append([]byte(nil), out...) // the caller owns what it gets
	}
	return out, nil
}
