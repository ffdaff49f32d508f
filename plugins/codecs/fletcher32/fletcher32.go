// Package fletcher32 is the numcodecs "fletcher32" checksum codec, the
// HDF5/netCDF variant of Fletcher-32: sums over the payload read as
// big-endian 16-bit words, the 4-byte result appended little-endian.
package fletcher32

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"

	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/extension"
)

// Registration registers the codec as "numcodecs.fletcher32" and "fletcher32".
var Registration = codec.Registration{
	Manifest: extension.Manifest{
		Kind:         extension.Codec,
		Name:         "numcodecs.fletcher32",
		Aliases:      []string{"fletcher32"},
		ConfigSchema: json.RawMessage(`{"type":"object","properties":{}}`),
	},
	New: New,
}

// Codec is the fletcher32 codec; stateless and safe for concurrent use.
type Codec struct{}

// New builds the codec; it takes no configuration.
func New(context.Context, json.RawMessage, codec.Resolver) (codec.Codec, error) { return &Codec{}, nil }

func (c *Codec) Name() string                   { return "numcodecs.fletcher32" }
func (c *Codec) Configuration() json.RawMessage { return json.RawMessage(`{}`) }

// EncodedSize implements codec.SizedCodec: four bytes more.
func (c *Codec) EncodedSize(_ context.Context, _ codec.Spec, decodedSize int64) (int64, bool) {
	return decodedSize + 4, true
}

// Sum is the HDF5 Fletcher-32 of b (H5_checksum_fletcher32): big-endian
// 16-bit words, sums folded with end-around carry every 360 words, an odd
// last byte taken as the high byte of a final word.
func Sum(b []byte) uint32 {
	var sum1, sum2 uint32
	words := len(b) / 2
	p := 0
	for words > 0 {
		n := min(words, 360)
		words -= n
		for ; n > 0; n-- {
			sum1 += uint32(b[p])<<8 | uint32(b[p+1])
			sum2 += sum1
			p += 2
		}
		sum1 = sum1&0xffff + sum1>>16
		sum2 = sum2&0xffff + sum2>>16
	}
	if len(b)%2 == 1 {
		sum1 += uint32(b[p]) << 8
		sum2 += sum1
		sum1 = sum1&0xffff + sum1>>16
		sum2 = sum2&0xffff + sum2>>16
	}
	sum1 = sum1&0xffff + sum1>>16
	sum2 = sum2&0xffff + sum2>>16
	return sum2<<16 | sum1
}

// EncodeBytes returns b followed by its checksum.
func (c *Codec) EncodeBytes(_ context.Context, _ codec.Spec, b []byte) ([]byte, error) {
	out := make([]byte, len(b), len(b)+4)
	copy(out, b)
	return binary.LittleEndian.AppendUint32(out, Sum(b)), nil
}

// DecodeBytes verifies the checksum and returns the payload, a sub-slice of
// b (the pipeline hands codecs buffers they may keep).
func (c *Codec) DecodeBytes(_ context.Context, in codec.Spec, b []byte) ([]byte, error) {
	if len(b) < 4 {
		return nil, fmt.Errorf("fletcher32: %w: %d bytes is too short to hold a checksum", codec.ErrCorrupt, len(b))
	}
	payload := b[:len(b)-4]
	if in.DecodedSize >= 0 && int64(len(payload)) != in.DecodedSize {
		return nil, fmt.Errorf("fletcher32: %w: payload of %d bytes, want %d", codec.ErrCorrupt, len(payload), in.DecodedSize)
	}
	stored := binary.LittleEndian.Uint32(b[len(b)-4:])
	if got := Sum(payload); got != stored {
		return nil, fmt.Errorf("fletcher32: %w: checksum mismatch: stored %#08x, computed %#08x", codec.ErrCorrupt, stored, got)
	}
	return payload, nil
}
