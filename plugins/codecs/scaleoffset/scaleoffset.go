// Package scaleoffset is the scale_offset codec of the zarr-extensions
// registry: an array->array codec storing (x - offset) * scale in the
// array's own type, decoding x = y / scale + offset. Integer arithmetic
// that leaves the type's range, or a division that is not exact, is an
// error (the spec: any value not representable in the type); float
// arithmetic rounds to the type after each operation, IEEE values
// (infinities, NaN) included. It is meant to be followed by cast_value,
// which narrows the type.
package scaleoffset

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/bits"

	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/dtype"
	"github.com/zarrgw/zarrgw/core/extension"
	"github.com/zarrgw/zarrgw/core/ndarray"
	"github.com/zarrgw/zarrgw/plugins/codecs/internal/codecconfig"
	"github.com/zarrgw/zarrgw/plugins/codecs/internal/numeric"
)

// Name is the registered name.
const Name = "scale_offset"

// Registration registers the codec as "scale_offset".
var Registration = codec.Registration{
	Manifest: extension.Manifest{
		Kind: extension.Codec,
		Name: Name,
		ConfigSchema: json.RawMessage(`{"type":"object","additionalProperties":false,"properties":{
	"offset":{"description":"subtracted before scaling, in the fill value encoding of the array's type"},
	"scale":{"description":"multiplied after the offset, in the fill value encoding of the array's type"}}}`),
	},
	New: New,
}

// Codec is the codec; immutable and safe for concurrent use. offset and
// scale stay JSON until the array's type is known.
type Codec struct {
	config        json.RawMessage
	offset, scale json.RawMessage
}

// New builds the codec from {"offset": v, "scale": v}, both optional.
func New(_ context.Context, configuration json.RawMessage, _ codec.Resolver) (codec.Codec, error) {
	var cfg struct {
		Offset json.RawMessage `json:"offset"`
		Scale  json.RawMessage `json:"scale"`
	}
	raw, err := codecconfig.Decode(Name, configuration, &cfg)
	if err != nil {
		return nil, err
	}
	return &Codec{config: raw, offset: cfg.Offset, scale: cfg.Scale}, nil
}

func (c *Codec) Name() string { return Name }

// Configuration returns the configuration as given (none when none was).
func (c *Codec) Configuration() json.RawMessage { return c.config }

// params are offset and scale in the array's type.
type params struct {
	t             numeric.Type
	bits          int
	offset, scale numeric.Value
}

func (c *Codec) params(dt dtype.DataType) (params, error) {
	if dt.Kind == dtype.Bool {
		return params{}, fmt.Errorf("%s: data type bool has no arithmetic", Name)
	}
	t, err := numeric.Of(dt)
	if err != nil {
		return params{}, fmt.Errorf("%s: %w", Name, err)
	}
	p := params{t: t, bits: numeric.BitWidth(dt), offset: t.Cast(numeric.Int(0)), scale: t.Cast(numeric.Int(1))}
	if p.offset, err = scalar(dt, t, "offset", c.offset, p.offset); err != nil {
		return p, err
	}
	if p.scale, err = scalar(dt, t, "scale", c.scale, p.scale); err != nil {
		return p, err
	}
	if !t.IsFloat() && p.scale.Bits == 0 {
		return p, fmt.Errorf("%s: scale 0 cannot be decoded in %s", Name, dt)
	}
	return p, nil
}

// scalar reads a configured value in the fill value encoding of dt.
func scalar(dt dtype.DataType, t numeric.Type, field string, raw json.RawMessage, def numeric.Value) (numeric.Value, error) {
	if len(raw) == 0 {
		return def, nil
	}
	b, err := dtype.ParseFill(dt, raw, false)
	if err != nil || b == nil {
		return def, fmt.Errorf("%s: %s: %v", Name, field, orNull(err))
	}
	return t.Load(b), nil
}

func orNull(err error) error {
	if err == nil {
		return errors.New("null is not a value")
	}
	return err
}

// errRange is wrapped when integer arithmetic leaves the type.
var errRange = errors.New("not representable")

func (p params) encode(x numeric.Value) (numeric.Value, error) {
	if p.t.IsFloat() {
		return p.t.Mul(p.t.Sub(x, p.offset), p.scale), nil
	}
	d, err := p.intOp(x, p.offset, sub)
	if err != nil {
		return x, err
	}
	return p.intOp(d, p.scale, mul)
}

func (p params) decode(y numeric.Value) (numeric.Value, error) {
	if p.t.IsFloat() {
		return p.t.Add(p.t.Div(y, p.scale), p.offset), nil
	}
	q, err := p.intOp(y, p.scale, div)
	if err != nil {
		return y, err
	}
	return p.intOp(q, p.offset, add)
}

type intOp int

const (
	add intOp = iota
	sub
	mul
	div
)

// intOp computes a op b exactly and fails when the result leaves the
// type's range (or, for div, is not an integer).
func (p params) intOp(a, b numeric.Value, op intOp) (numeric.Value, error) {
	signed := p.t.Kind == dtype.Int
	lo, hi := numeric.IntRange(signed, p.bits)
	var r numeric.Value
	ok := true
	if signed {
		x, y := int64(a.Bits), int64(b.Bits)
		var z int64
		switch op {
		case add:
			z = x + y
			ok = (y >= 0) == (z >= x)
		case sub:
			z = x - y
			ok = (y >= 0) == (z <= x)
		case mul:
			z = x * y
			ok = x == 0 || (z/x == y && !(x == -1 && y == -1<<63) && !(y == -1 && x == -1<<63))
		case div:
			ok = y != 0 && !(x == -1<<63 && y == -1) && x%y == 0
			if ok {
				z = x / y
			}
		}
		ok = ok && z >= lo && z <= int64(hi)
		r = numeric.Int(z)
	} else {
		x, y := a.Bits, b.Bits
		var z uint64
		var carry uint64
		switch op {
		case add:
			z, carry = bits.Add64(x, y, 0)
		case sub:
			z, carry = bits.Sub64(x, y, 0)
		case mul:
			carry, z = bits.Mul64(x, y)
		case div:
			ok = y != 0 && x%y == 0
			if ok {
				z = x / y
			}
		}
		ok = ok && carry == 0 && z <= hi
		r = numeric.Value{Bits: z}
	}
	if !ok {
		return r, fmt.Errorf("%w: %s of %s and %s in %d-bit integers", errRange, [...]string{"sum", "difference", "product", "exact quotient"}[op], show(a), show(b), p.bits)
	}
	return r, nil
}

func show(v numeric.Value) string {
	if v.Signed {
		return fmt.Sprint(int64(v.Bits))
	}
	return fmt.Sprint(v.Bits)
}

// OutputSpec keeps the type and shape, and encodes the fill value.
func (c *Codec) OutputSpec(_ context.Context, in codec.Spec) (codec.Spec, error) {
	p, err := c.params(in.DataType)
	if err != nil {
		return codec.Spec{}, err
	}
	out := in
	if len(in.FillValue) == p.t.Size {
		v, err := p.encode(p.t.Load(in.FillValue))
		if err != nil {
			return codec.Spec{}, fmt.Errorf("%s: the fill value: %w", Name, err)
		}
		out.FillValue = make([]byte, p.t.Size)
		p.t.Store(out.FillValue, v)
	}
	return out, nil
}

// EncodedSize implements codec.SizedCodec: the size does not change.
func (c *Codec) EncodedSize(_ context.Context, _ codec.Spec, decodedSize int64) (int64, bool) {
	return decodedSize, true
}

// EncodeArray encodes every element.
func (c *Codec) EncodeArray(_ context.Context, in codec.Spec, a *ndarray.Array) (*ndarray.Array, error) {
	return c.apply(in, a, params.encode)
}

// DecodeArray decodes every element.
func (c *Codec) DecodeArray(_ context.Context, in codec.Spec, a *ndarray.Array) (*ndarray.Array, error) {
	return c.apply(in, a, params.decode)
}

func (c *Codec) apply(in codec.Spec, a *ndarray.Array, f func(params, numeric.Value) (numeric.Value, error)) (*ndarray.Array, error) {
	p, err := c.params(in.DataType)
	if err != nil {
		return nil, err
	}
	n, size := ndarray.NumElements(in.Shape), p.t.Size
	if !a.DType.Equal(in.DataType) || len(a.Data) != n*size {
		return nil, fmt.Errorf("%s: %w: array %s of %d bytes, want %s%v", Name, codec.ErrCorrupt, a.DType, len(a.Data), in.DataType, in.Shape)
	}
	out := &ndarray.Array{DType: in.DataType, Shape: append([]int(nil), in.Shape...), Data: make([]byte, n*size)}
	for i := range n {
		v, err := f(p, p.t.Load(a.Data[i*size:]))
		if err != nil {
			return nil, fmt.Errorf("%s: element %d: %w", Name, i, err)
		}
		p.t.Store(out.Data[i*size:(i+1)*size], v)
	}
	return out, nil
}
