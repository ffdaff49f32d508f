// Package bitshave is an example of a codec maintained outside zarrgw and
// run as a plugin: a lossy array->array filter for float32 and float64
// arrays that keeps the keepbits most significant bits of each mantissa
// and zeroes the rest ("bit shaving").
//
// Shaving truncates toward zero; it does not round as numcodecs' bitround
// does (which zarrgw bundles), so a value never grows in magnitude and the
// shaved mantissa is exactly the kept prefix of the original. The zeroed
// bits make the data far more compressible by a following compressor.
// Decoding is the identity: the dropped bits are gone. NaN and infinities
// are left as they are, so a NaN never becomes an infinity.
package bitshave

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"

	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/dtype"
	"github.com/zarrgw/zarrgw/core/extension"
	"github.com/zarrgw/zarrgw/core/ndarray"
)

// Name is the codec's name in array metadata.
const Name = "bitshave"

// Registration describes the codec to hosts (its manifest, with the
// schema of its configuration) and builds it: the one value a plugin's main
// serves. The codec is array->array because it implements codec.ArrayArray.
var Registration = codec.Registration{
	Manifest: extension.Manifest{
		Kind:    extension.Codec,
		Name:    Name,
		URIs:    []string{"https://example.org/acme/zarr-codecs/bitshave/1.0"},
		Version: "1.0.0",
		ConfigSchema: json.RawMessage(`{"type":"object","required":["keepbits"],"additionalProperties":false,
		"properties":{"keepbits":{"type":"integer","minimum":0,"maximum":52,
		"description":"mantissa bits kept (at most 23 for float32, 52 for float64)"}}}`),
	},
	New: New,
}

// Codec shaves mantissas to keepbits bits.
type Codec struct {
	keepbits int
}

// New builds the codec from {"keepbits": N}.
func New(_ context.Context, configuration json.RawMessage, _ codec.Resolver) (codec.Codec, error) {
	var cfg struct {
		Keepbits *int `json:"keepbits"`
	}
	if err := json.Unmarshal(configuration, &cfg); err != nil {
		return nil, fmt.Errorf("%s: configuration: %w", Name, err)
	}
	if cfg.Keepbits == nil || *cfg.Keepbits < 0 || *cfg.Keepbits > 52 {
		return nil, fmt.Errorf("%s: keepbits must be an integer from 0 to 52", Name)
	}
	return &Codec{keepbits: *cfg.Keepbits}, nil
}

func (c *Codec) Name() string { return Name }

func (c *Codec) Configuration() json.RawMessage {
	return json.RawMessage(fmt.Sprintf(`{"keepbits":%d}`, c.keepbits))
}

// mantissaBits is the mantissa width of the types the codec takes.
func mantissaBits(d dtype.DataType) (int, bool) {
	switch {
	case d.Kind == dtype.Float && d.Size == 4:
		return 23, true
	case d.Kind == dtype.Float && d.Size == 8:
		return 52, true
	}
	return 0, false
}

// OutputSpec is the input spec: shaving changes values, not types.
func (c *Codec) OutputSpec(_ context.Context, in codec.Spec) (codec.Spec, error) {
	return c.outputSpec(in)
}

func (c *Codec) outputSpec(in codec.Spec) (codec.Spec, error) {
	bits, ok := mantissaBits(in.DataType)
	if !ok {
		return codec.Spec{}, fmt.Errorf("%s: takes float32 or float64, not %s", Name, in.DataType)
	}
	if c.keepbits > bits {
		return codec.Spec{}, fmt.Errorf("%s: keepbits %d exceeds the %d mantissa bits of %s", Name, c.keepbits, bits, in.DataType)
	}
	return in, nil
}

// EncodeArray returns a shaved copy of a.
func (c *Codec) EncodeArray(_ context.Context, in codec.Spec, a *ndarray.Array) (*ndarray.Array, error) {
	bits, err := c.check(in, a)
	if err != nil {
		return nil, err
	}
	out := &ndarray.Array{DType: a.DType, Shape: append([]int(nil), a.Shape...), Data: make([]byte, len(a.Data))}
	drop := uint(bits - c.keepbits)
	if a.DType.Size == 4 {
		shave32(out.Data, a.Data, drop)
	} else {
		shave64(out.Data, a.Data, drop)
	}
	return out, nil
}

// DecodeArray is the identity.
func (c *Codec) DecodeArray(_ context.Context, in codec.Spec, a *ndarray.Array) (*ndarray.Array, error) {
	if _, err := c.check(in, a); err != nil {
		return nil, err
	}
	return a, nil
}

func (c *Codec) check(in codec.Spec, a *ndarray.Array) (int, error) {
	if _, err := c.outputSpec(in); err != nil {
		return 0, err
	}
	if !a.DType.Equal(in.DataType) || ndarray.NumElements(a.Shape) != ndarray.NumElements(in.Shape) || a.Check() != nil {
		return 0, fmt.Errorf("%s: %w: array %s%v does not match its spec %s%v", Name, codec.ErrCorrupt, a.DType, a.Shape, in.DataType, in.Shape)
	}
	bits, _ := mantissaBits(in.DataType)
	return bits, nil
}

// shave32 and shave64 zero the low drop bits of each finite value's
// mantissa; values are little-endian in memory, as dtype defines.
func shave32(dst, src []byte, drop uint) {
	mask := ^uint32(0) << drop
	for i := 0; i+4 <= len(src); i += 4 {
		v := binary.LittleEndian.Uint32(src[i:])
		if f := math.Float32frombits(v); !math.IsNaN(float64(f)) && !math.IsInf(float64(f), 0) {
			v &= mask
		}
		binary.LittleEndian.PutUint32(dst[i:], v)
	}
}

func shave64(dst, src []byte, drop uint) {
	mask := ^uint64(0) << drop
	for i := 0; i+8 <= len(src); i += 8 {
		v := binary.LittleEndian.Uint64(src[i:])
		if f := math.Float64frombits(v); !math.IsNaN(f) && !math.IsInf(f, 0) {
			v &= mask
		}
		binary.LittleEndian.PutUint64(dst[i:], v)
	}
}
