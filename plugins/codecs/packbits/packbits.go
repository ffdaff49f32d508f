// Package packbits is the packbits codec of the zarr-extensions registry:
// an array->bytes codec that stores each element in exactly the bits it
// needs (1 for bool, 2 for int2, 4 for int4, ...; or the bits from
// first_bit to last_bit of each component), packed least significant bit
// first with no gap between elements, padded with zero bits to a whole
// byte, the count of padding bits optionally stored in a first or last
// byte. It is not numcodecs' packbits (a bool filter, numcodecs.packbits).
package packbits

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/zarrgw/zarrgw/core/checked"
	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/dtype"
	"github.com/zarrgw/zarrgw/core/extension"
	"github.com/zarrgw/zarrgw/core/ndarray"
	"github.com/zarrgw/zarrgw/plugins/codecs/internal/codecconfig"
	"github.com/zarrgw/zarrgw/plugins/codecs/internal/numeric"
)

// Name is the registered name.
const Name = "packbits"

// Registration registers the codec as "packbits".
var Registration = codec.Registration{
	Manifest: extension.Manifest{
		Kind: extension.Codec,
		Name: Name,
		ConfigSchema: json.RawMessage(`{"type":"object","additionalProperties":false,"properties":{
	"padding_encoding":{"enum":["none","first_byte","last_byte","start_byte","end_byte"],"default":"none"},
	"first_bit":{"type":["integer","null"],"minimum":0},
	"last_bit":{"type":["integer","null"],"minimum":0},
	"start_bit":{"type":["integer","null"],"minimum":0},
	"end_bit":{"type":["integer","null"],"minimum":0}}}`),
	},
	New: New,
}

// padding says where the count of padding bits is stored.
type padding int

const (
	padNone padding = iota
	padFirst
	padLast
)

// The spec's README names the fields first_byte/last_byte and
// first_bit/last_bit (as zarrs writes them); its schema.json names them
// start_byte/end_byte and start_bit/end_bit. Both are read.
var paddings = map[string]padding{"none": padNone, "first_byte": padFirst, "start_byte": padFirst, "last_byte": padLast, "end_byte": padLast}

// Codec is the codec; immutable and safe for concurrent use.
type Codec struct {
	config            json.RawMessage
	pad               padding
	firstBit, lastBit *int
}

// New builds the codec from its (optional) configuration.
func New(_ context.Context, configuration json.RawMessage, _ codec.Resolver) (codec.Codec, error) {
	var cfg struct {
		Padding  *string `json:"padding_encoding"`
		FirstBit *int    `json:"first_bit"`
		LastBit  *int    `json:"last_bit"`
		StartBit *int    `json:"start_bit"`
		EndBit   *int    `json:"end_bit"`
	}
	raw, err := codecconfig.Decode(Name, configuration, &cfg)
	if err != nil {
		return nil, err
	}
	c := &Codec{config: raw}
	if cfg.Padding != nil {
		p, ok := paddings[*cfg.Padding]
		if !ok {
			return nil, fmt.Errorf("%s: padding_encoding: unknown value %q", Name, *cfg.Padding)
		}
		c.pad = p
	}
	if c.firstBit, err = either("first_bit", cfg.FirstBit, "start_bit", cfg.StartBit); err != nil {
		return nil, err
	}
	if c.lastBit, err = either("last_bit", cfg.LastBit, "end_bit", cfg.EndBit); err != nil {
		return nil, err
	}
	if c.firstBit != nil && c.lastBit != nil && *c.lastBit < *c.firstBit {
		return nil, fmt.Errorf("%s: last_bit %d is less than first_bit %d", Name, *c.lastBit, *c.firstBit)
	}
	return c, nil
}

// either is the one of two spellings of a field that is set.
func either(name string, a *int, alt string, b *int) (*int, error) {
	if a != nil && b != nil {
		return nil, fmt.Errorf("%s: both %s and %s are set", Name, name, alt)
	}
	if a == nil {
		a, name = b, alt
	}
	if a != nil && (*a < 0 || *a > 63) {
		return nil, fmt.Errorf("%s: %s %d is not a bit of a component", Name, name, *a)
	}
	return a, nil
}

func (c *Codec) Name() string { return Name }

// Configuration returns the configuration as given.
func (c *Codec) Configuration() json.RawMessage { return c.config }

// layout is how elements of one type are packed.
type layout struct {
	comps     int  // components per element (2 for complex)
	compBytes int  // bytes of a component in memory
	first     uint // first bit stored
	width     uint // bits stored per component
	signed    bool // sign-extend on decode
	whole     bool // every bit of whole bytes: the bytes codec's little-endian form
}

// layoutOf checks the type and the configured bits against it.
func (c *Codec) layoutOf(dt dtype.DataType) (layout, error) {
	l := layout{comps: 1, compBytes: dt.Size}
	n := numeric.BitWidth(dt)
	switch dt.Kind {
	// The registry's sub-byte integers are held as ml_dtypes holds them,
	// the value in the low bits and zeros above (int4 -1 is 0x0f): no sign
	// extension on decode, unlike the core ints.
	case dtype.Bool, dtype.Uint, dtype.Float, dtype.SubByteInt, dtype.SubByteUint, dtype.MiniFloat:
	case dtype.Int:
		l.signed = true
	case dtype.Complex:
		l.comps, l.compBytes, n = 2, dt.Size/2, dt.Size*4
	case dtype.MiniComplex:
		l.comps, l.compBytes = 2, dt.Size/2
	default:
		return l, fmt.Errorf("%s: data type %s is not a bool or number type", Name, dt)
	}
	first, last := 0, n-1
	if c.firstBit != nil {
		first = *c.firstBit
	}
	if c.lastBit != nil {
		last = *c.lastBit
	}
	if last >= n || first > last {
		return l, fmt.Errorf("%s: bits %d..%d are not within the %d bits of a %s component", Name, first, last, n, dt)
	}
	l.first, l.width = uint(first), uint(last-first+1)
	l.whole = first == 0 && last == n-1 && n == 8*l.compBytes
	return l, nil
}

// packedBytes is the encoded length of n elements, padding byte included,
// and the number of padding bits.
func (l layout) packedBytes(n int64, pad padding) (int64, int, bool) {
	var calc checked.Calc
	bits := calc.Mul(calc.Mul(n, int64(l.comps)), int64(l.width))
	if calc.Overflowed() {
		return 0, 0, false
	}
	size := (bits + 7) / 8
	if pad != padNone {
		size++
	}
	return size, int((8 - bits%8) % 8), true
}

// EncodedSize implements codec.SizedCodec.
func (c *Codec) EncodedSize(_ context.Context, in codec.Spec, decodedSize int64) (int64, bool) {
	l, err := c.layoutOf(in.DataType)
	if err != nil || in.DataType.Size == 0 {
		return -1, false
	}
	size, _, ok := l.packedBytes(decodedSize/int64(in.DataType.Size), c.pad)
	return size, ok
}

// Encode packs the elements of a.
func (c *Codec) Encode(_ context.Context, in codec.Spec, a *ndarray.Array) ([]byte, error) {
	l, err := c.layoutOf(in.DataType)
	if err != nil {
		return nil, err
	}
	n := ndarray.NumElements(in.Shape)
	if len(a.Data) != n*in.DataType.Size {
		return nil, fmt.Errorf("%s: array holds %d bytes, %s%v needs %d", Name, len(a.Data), in.DataType, in.Shape, n*in.DataType.Size)
	}
	size, padBits, ok := l.packedBytes(int64(n), c.pad)
	if !ok {
		return nil, fmt.Errorf("%s: chunk %v too large", Name, in.Shape)
	}
	out := make([]byte, size)
	body := out
	switch c.pad {
	case padFirst:
		out[0], body = byte(padBits), out[1:]
	case padLast:
		out[size-1], body = byte(padBits), out[:size-1]
	}
	if l.whole {
		copy(body, a.Data)
		return out, nil
	}
	w := bitWriter{buf: body}
	mask := uint64(1)<<l.width - 1
	for i := 0; i < n*l.comps; i++ {
		w.write((numeric.LoadBits(a.Data[i*l.compBytes:(i+1)*l.compBytes])>>l.first)&mask, l.width)
	}
	return out, nil
}

// Decode unpacks b into an array of spec in; a length other than the
// packed length, or a padding count that does not match, is corrupt.
func (c *Codec) Decode(_ context.Context, in codec.Spec, b []byte) (*ndarray.Array, error) {
	l, err := c.layoutOf(in.DataType)
	if err != nil {
		return nil, err
	}
	n := ndarray.NumElements(in.Shape)
	size, padBits, ok := l.packedBytes(int64(n), c.pad)
	if !ok || int64(len(b)) != size {
		return nil, fmt.Errorf("%s: %w: %d bytes, %s%v packs into %d", Name, codec.ErrCorrupt, len(b), in.DataType, in.Shape, size)
	}
	body := b
	switch c.pad {
	case padFirst:
		if int(b[0]) != padBits {
			return nil, fmt.Errorf("%s: %w: first byte says %d padding bits, want %d", Name, codec.ErrCorrupt, b[0], padBits)
		}
		body = b[1:]
	case padLast:
		if int(b[size-1]) != padBits {
			return nil, fmt.Errorf("%s: %w: last byte says %d padding bits, want %d", Name, codec.ErrCorrupt, b[size-1], padBits)
		}
		body = b[:size-1]
	}
	a := ndarray.New(in.DataType, in.Shape)
	if l.whole {
		copy(a.Data, body)
		return a, nil
	}
	r := bitReader{buf: body}
	memBits := uint(8 * l.compBytes)
	for i := 0; i < n*l.comps; i++ {
		v := r.read(l.width)
		if l.signed && v>>(l.width-1) == 1 {
			v |= ^uint64(0) << l.width // sign-extend to the whole component
		}
		v <<= l.first
		if memBits < 64 {
			v &= uint64(1)<<memBits - 1
		}
		numeric.StoreBits(a.Data[i*l.compBytes:(i+1)*l.compBytes], v)
	}
	return a, nil
}
