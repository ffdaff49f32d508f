// Package lz4codec is the numcodecs "lz4" codec: a 4-byte little-endian
// decoded length followed by one raw LZ4 block (no LZ4 frame).
package lz4codec

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"

	"github.com/pierrec/lz4/v4"

	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/extension"
	"github.com/zarrgw/zarrgw/plugins/codecs/internal/bounded"
)

// Registration registers the codec as "numcodecs.lz4" and "lz4", and under its draft v3 URI.
var Registration = codec.Registration{
	Manifest: extension.Manifest{
		Kind:    extension.Codec,
		Name:    "numcodecs.lz4",
		Aliases: []string{"lz4"},
		URIs:    []string{"https://purl.org/zarr/spec/codec/lz4/1.0"},
		ConfigSchema: json.RawMessage(`{"type":"object","properties":{
	"acceleration":{"type":"integer","default":1}}}`),
	},
	New: New,
}

// maxInput is the largest buffer the format can describe (numcodecs'
// limit, below LZ4's 0x7E000000).
const maxInput = 0x7E000000

// Codec is the lz4 codec; stateless and safe for concurrent use.
type Codec struct {
	acceleration int
}

// New builds the codec from {"acceleration": n} (default 1; values below 1
// mean 1, as in numcodecs).
func New(_ context.Context, configuration json.RawMessage, _ codec.Resolver) (codec.Codec, error) {
	var cfg struct {
		Acceleration *int `json:"acceleration"`
	}
	if len(configuration) > 0 && string(configuration) != "null" {
		if err := json.Unmarshal(configuration, &cfg); err != nil {
			return nil, fmt.Errorf("lz4: configuration: %w", err)
		}
	}
	c := &Codec{acceleration: 1}
	if cfg.Acceleration != nil {
		c.acceleration = *cfg.Acceleration
	}
	return c, nil
}

func (c *Codec) Name() string { return "numcodecs.lz4" }

// Configuration returns {"acceleration": n}.
func (c *Codec) Configuration() json.RawMessage {
	return json.RawMessage(fmt.Sprintf(`{"acceleration":%d}`, c.acceleration))
}

// EncodeBytes compresses b with LZ4's reference fast algorithm, whose
// output matches LZ4_compress_fast at the same acceleration.
func (c *Codec) EncodeBytes(_ context.Context, _ codec.Spec, b []byte) ([]byte, error) {
	if len(b) > maxInput {
		return nil, fmt.Errorf("lz4: %d bytes is more than the format's limit of %d", len(b), maxInput)
	}
	out := make([]byte, 4+lz4.CompressBlockBound(len(b)))
	binary.LittleEndian.PutUint32(out, uint32(len(b)))
	comp := lz4.CompressorCCompat{Acceleration: max(c.acceleration, 1)}
	n, err := comp.CompressBlock(b, out[4:])
	if err != nil || n == 0 {
		return nil, fmt.Errorf("lz4: compress %d bytes: n=%d, %v", len(b), n, err)
	}
	return out[:4+n], nil
}

// DecodeBytes checks the declared length against the spec before
// allocating, then decodes the block into exactly that many bytes.
func (c *Codec) DecodeBytes(_ context.Context, in codec.Spec, b []byte) ([]byte, error) {
	if len(b) < 4 {
		return nil, fmt.Errorf("lz4: %w: %d bytes is too short for the length header", codec.ErrCorrupt, len(b))
	}
	n := int64(binary.LittleEndian.Uint32(b))
	if err := bounded.Check(n, in); err != nil {
		return nil, fmt.Errorf("lz4: %w", err)
	}
	// An LZ4 block expands at most ~255 times; a larger claim is a lie
	// that would otherwise allocate up to 4 GiB.
	if n > 255*int64(len(b)-4)+16 {
		return nil, fmt.Errorf("lz4: %w: %d input bytes cannot decode to %d", codec.ErrCorrupt, len(b)-4, n)
	}
	out := make([]byte, n)
	if n == 0 {
		return out, nil
	}
	got, err := lz4.UncompressBlock(b[4:], out)
	if err != nil {
		return nil, fmt.Errorf("lz4: %w: %v", codec.ErrCorrupt, err)
	}
	if int64(got) != n {
		return nil, fmt.Errorf("lz4: %w: block decodes to %d bytes, header says %d", codec.ErrCorrupt, got, n)
	}
	return out, nil
}
