// Package bitround is the numcodecs "bitround" filter: an array->array
// codec that rounds float mantissas to keepbits bits (round half to even),
// zeroing the rest so that compressors find more redundancy. Decoding is
// the identity; the precision lost is lost.
package bitround

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"

	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/dtype"
	"github.com/zarrgw/zarrgw/core/extension"
	"github.com/zarrgw/zarrgw/core/ndarray"
)

// Registration registers the codec as "numcodecs.bitround" and "bitround".
var Registration = codec.Registration{
	Manifest: extension.Manifest{
		Kind:    extension.Codec,
		Name:    "numcodecs.bitround",
		Aliases: []string{"bitround"},
		ConfigSchema: json.RawMessage(`{"type":"object","required":["keepbits"],"properties":{
	"keepbits":{"type":"integer","minimum":0,"maximum":52,"description":"mantissa bits kept"}}}`),
	},
	New: New,
}

// Codec is the filter; immutable and safe for concurrent use.
type Codec struct {
	keepBits int
}

// New builds the codec from {"keepbits": n}, n >= 0 (required).
func New(_ context.Context, configuration json.RawMessage, _ codec.Resolver) (codec.Codec, error) {
	var cfg struct {
		KeepBits *int `json:"keepbits"`
	}
	if len(configuration) > 0 && string(configuration) != "null" {
		if err := json.Unmarshal(configuration, &cfg); err != nil {
			return nil, fmt.Errorf("bitround: configuration: %w", err)
		}
	}
	if cfg.KeepBits == nil {
		return nil, fmt.Errorf("bitround: configuration needs \"keepbits\"")
	}
	if *cfg.KeepBits < 0 {
		return nil, fmt.Errorf("bitround: keepbits %d is negative", *cfg.KeepBits)
	}
	return &Codec{keepBits: *cfg.KeepBits}, nil
}

func (c *Codec) Name() string { return "numcodecs.bitround" }

// Configuration returns {"keepbits": n}.
func (c *Codec) Configuration() json.RawMessage {
	return json.RawMessage(fmt.Sprintf(`{"keepbits":%d}`, c.keepBits))
}

// mantissaBits is the stored mantissa width of a float type.
func mantissaBits(dt dtype.DataType) (int, error) {
	if dt.Kind == dtype.Float {
		switch dt.Size {
		case 2:
			return 10, nil
		case 4:
			return 23, nil
		case 8:
			return 52, nil
		}
	}
	return 0, fmt.Errorf("bitround: only float16/32/64 arrays can be bit-rounded, not %s", dt)
}

// OutputSpec is the identity, after checking the type and keepbits.
func (c *Codec) OutputSpec(_ context.Context, in codec.Spec) (codec.Spec, error) {
	return c.outputSpec(in)
}

func (c *Codec) outputSpec(in codec.Spec) (codec.Spec, error) {
	bits, err := mantissaBits(in.DataType)
	if err != nil {
		return codec.Spec{}, err
	}
	if c.keepBits > bits {
		return codec.Spec{}, fmt.Errorf("bitround: keepbits %d is more than the %d mantissa bits of %s", c.keepBits, bits, in.DataType)
	}
	return in, nil
}

// EncodedSize implements codec.SizedCodec: the size does not change.
func (c *Codec) EncodedSize(_ context.Context, _ codec.Spec, decodedSize int64) (int64, bool) {
	return decodedSize, true
}

// EncodeArray rounds every element as numcodecs does on the integer view:
// b += ((b >> drop) & 1) + (1 << (drop-1)) - 1; b &= mask. NaN and Inf
// can change (as in numcodecs); keepbits equal to the mantissa width
// returns a unchanged.
func (c *Codec) EncodeArray(_ context.Context, in codec.Spec, a *ndarray.Array) (*ndarray.Array, error) {
	if _, err := c.outputSpec(in); err != nil {
		return nil, err
	}
	bits, _ := mantissaBits(in.DataType)
	if n := ndarray.NumElements(in.Shape) * in.DataType.Size; len(a.Data) != n {
		return nil, fmt.Errorf("bitround: array holds %d bytes, spec %s%v needs %d", len(a.Data), in.DataType, in.Shape, n)
	}
	if c.keepBits == bits {
		return a, nil
	}
	out := &ndarray.Array{DType: a.DType, Shape: append([]int(nil), a.Shape...), Data: make([]byte, len(a.Data))}
	round(out.Data, a.Data, in.DataType.Size, uint(bits-c.keepBits))
	return out, nil
}

// DecodeArray returns a unchanged.
func (c *Codec) DecodeArray(_ context.Context, in codec.Spec, a *ndarray.Array) (*ndarray.Array, error) {
	if _, err := mantissaBits(in.DataType); err != nil {
		return nil, err
	}
	if !a.DType.Equal(in.DataType) || ndarray.NumElements(a.Shape) != ndarray.NumElements(in.Shape) || a.Check() != nil {
		return nil, fmt.Errorf("bitround: %w: array %s%v does not match its spec %s%v", codec.ErrCorrupt, a.DType, a.Shape, in.DataType, in.Shape)
	}
	return a, nil
}

// round applies the rounding to elements of size bytes, dropping drop > 0
// mantissa bits. Unsigned arithmetic gives the bits numpy's wrapping signed
// arithmetic gives.
func round(dst, src []byte, size int, drop uint) {
	half := uint64(1)<<(drop-1) - 1
	mask := ^uint64(0) << drop
	switch size {
	case 2:
		for i := 0; i+2 <= len(src); i += 2 {
			b := uint64(binary.LittleEndian.Uint16(src[i:]))
			b += (b>>drop)&1 + half
			binary.LittleEndian.PutUint16(dst[i:], uint16(b&mask))
		}
	case 4:
		for i := 0; i+4 <= len(src); i += 4 {
			b := uint64(binary.LittleEndian.Uint32(src[i:]))
			b += (b>>drop)&1 + half
			binary.LittleEndian.PutUint32(dst[i:], uint32(b&mask))
		}
	default:
		for i := 0; i+8 <= len(src); i += 8 {
			b := binary.LittleEndian.Uint64(src[i:])
			b += (b>>drop)&1 + half
			binary.LittleEndian.PutUint64(dst[i:], b&mask)
		}
	}
}
