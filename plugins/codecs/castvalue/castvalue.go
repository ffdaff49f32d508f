// Package castvalue is the cast_value codec of the zarr-extensions
// registry: an array->array codec that converts every element to another
// number type by its value (not its bits), with a configured rounding, a
// rule for values beyond the target's range (none: an error; clamp; wrap)
// and explicit maps of single values (scalar_map) that go first. Decoding
// casts back the same way. Element arithmetic goes through
// plugins/codecs/internal/numeric, so every number type it knows is a type
// this codec casts between.
package castvalue

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"

	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/dtype"
	"github.com/zarrgw/zarrgw/core/extension"
	"github.com/zarrgw/zarrgw/core/meta"
	"github.com/zarrgw/zarrgw/core/ndarray"
	"github.com/zarrgw/zarrgw/plugins/codecs/internal/codecconfig"
)

// Name is the registered name.
const Name = "cast_value"

// Registration registers the codec as "cast_value".
var Registration = codec.Registration{
	Manifest: extension.Manifest{
		Kind: extension.Codec,
		Name: Name,
		ConfigSchema: json.RawMessage(`{"type":"object","required":["data_type"],"additionalProperties":false,"properties":{
	"data_type":{"type":["string","object"],"description":"the type elements are cast to"},
	"rounding":{"enum":["nearest-even","towards-zero","towards-positive","towards-negative","nearest-away"]},
	"out_of_range":{"enum":["clamp","wrap"]},
	"scalar_map":{"type":"object","additionalProperties":false,"properties":{
		"encode":{"type":"array","items":{"type":"array","minItems":2,"maxItems":2}},
		"decode":{"type":"array","items":{"type":"array","minItems":2,"maxItems":2}}}}}}`),
	},
	New: New,
}

// MaxScalarMap bounds the entries of each direction of scalar_map.
const MaxScalarMap = 1 << 16

// Codec is the codec; immutable and safe for concurrent use.
type Codec struct {
	config         json.RawMessage
	target         dtype.DataType
	round          rounding
	oor            outOfRange
	encode, decode [][]json.RawMessage
}

// New builds the codec from its configuration; unknown keys are refused,
// as the spec requires.
func New(_ context.Context, configuration json.RawMessage, _ codec.Resolver) (codec.Codec, error) {
	var cfg struct {
		DataType   json.RawMessage `json:"data_type"`
		Rounding   *string         `json:"rounding"`
		OutOfRange *string         `json:"out_of_range"`
		ScalarMap  *struct {
			Encode [][]json.RawMessage `json:"encode"`
			Decode [][]json.RawMessage `json:"decode"`
		} `json:"scalar_map"`
	}
	raw, err := codecconfig.Decode(Name, configuration, &cfg)
	if err != nil {
		return nil, err
	}
	if len(cfg.DataType) == 0 {
		return nil, fmt.Errorf("%s: configuration needs \"data_type\"", Name)
	}
	c := &Codec{config: raw}
	if c.target, err = meta.ParseDataType(cfg.DataType); err != nil {
		return nil, fmt.Errorf("%s: data_type: %w", Name, err)
	}
	to, err := kindOf(c.target)
	if err != nil {
		return nil, fmt.Errorf("%s: data_type: %w", Name, err)
	}
	if cfg.Rounding != nil {
		r, ok := roundings[*cfg.Rounding]
		if !ok {
			return nil, fmt.Errorf("%s: rounding: unknown rounding %q", Name, *cfg.Rounding)
		}
		c.round = r
	}
	if cfg.OutOfRange != nil {
		o, ok := outOfRanges[*cfg.OutOfRange]
		if !ok {
			return nil, fmt.Errorf("%s: out_of_range: %q is neither \"clamp\" nor \"wrap\"", Name, *cfg.OutOfRange)
		}
		if o == wrap && to.num.IsFloat() {
			return nil, fmt.Errorf("%s: out_of_range: \"wrap\" needs an integer data_type, not %s", Name, c.target)
		}
		c.oor = o
	}
	if m := cfg.ScalarMap; m != nil {
		if len(m.Encode) > MaxScalarMap || len(m.Decode) > MaxScalarMap {
			return nil, fmt.Errorf("%s: scalar_map: more than %d entries", Name, MaxScalarMap)
		}
		c.encode, c.decode = m.Encode, m.Decode
	}
	// scalar_map's decode side is in the target type: check it now; the
	// encode side waits for the array's type (OutputSpec).
	if _, err := parseMap(c.decode, c.target, dtype.DataType{}); err != nil {
		return nil, fmt.Errorf("%s: scalar_map: decode: %w", Name, err)
	}
	return c, nil
}

func (c *Codec) Name() string { return Name }

// Configuration returns the configuration as it was given.
func (c *Codec) Configuration() json.RawMessage { return c.config }

// directions are the casters and scalar maps of both directions for an
// array of type in.
type directions struct {
	enc, dec       caster
	encMap, decMap scalarMap
}

func (c *Codec) directions(in dtype.DataType) (directions, error) {
	from, err := kindOf(in)
	if err != nil {
		return directions{}, fmt.Errorf("%s: the array's %w", Name, err)
	}
	to, _ := kindOf(c.target)
	d := directions{
		enc: caster{from: from, to: to, round: c.round, oor: c.oor},
		dec: caster{from: to, to: from, round: c.round, oor: c.oor},
	}
	if d.encMap, err = parseMap(c.encode, in, c.target); err != nil {
		return d, fmt.Errorf("%s: scalar_map: encode: %w", Name, err)
	}
	if d.decMap, err = parseMap(c.decode, c.target, in); err != nil {
		return d, fmt.Errorf("%s: scalar_map: decode: %w", Name, err)
	}
	return d, nil
}

// OutputSpec is the target type with the fill value cast to it; a fill
// value that does not come back unchanged from a cast there and back is
// an error, as the spec requires.
func (c *Codec) OutputSpec(_ context.Context, in codec.Spec) (codec.Spec, error) {
	d, err := c.directions(in.DataType)
	if err != nil {
		return codec.Spec{}, err
	}
	out := in
	out.DataType = c.target
	out.FillValue = nil
	if in.FillValue == nil {
		return out, nil
	}
	if len(in.FillValue) != in.DataType.Size {
		return codec.Spec{}, fmt.Errorf("%s: fill value of %d bytes for %s", Name, len(in.FillValue), in.DataType)
	}
	if out.FillValue, err = castOne(d.enc, d.encMap, in.FillValue); err != nil {
		return codec.Spec{}, fmt.Errorf("%s: the fill value: %w", Name, err)
	}
	back, err := castOne(d.dec, d.decMap, out.FillValue)
	if err != nil {
		return codec.Spec{}, fmt.Errorf("%s: the fill value cast to %s does not cast back: %w", Name, c.target, err)
	}
	if !sameValue(d.enc.from, back, in.FillValue) {
		return codec.Spec{}, fmt.Errorf("%s: the fill value does not survive a cast to %s and back", Name, c.target)
	}
	return out, nil
}

// sameValue compares two elements of k by value (any NaN equals any NaN).
func sameValue(k kind, a, b []byte) bool {
	if bytes.Equal(a, b) {
		return true
	}
	if !k.num.IsFloat() {
		return false
	}
	x, y := k.num.Load(a), k.num.Load(b)
	return math.IsNaN(x.F) && math.IsNaN(y.F)
}

// EncodedSize implements codec.SizedCodec.
func (c *Codec) EncodedSize(_ context.Context, in codec.Spec, decodedSize int64) (int64, bool) {
	if in.DataType.Size == 0 {
		return -1, false
	}
	return decodedSize / int64(in.DataType.Size) * int64(c.target.Size), true
}

// EncodeArray casts every element to the target type.
func (c *Codec) EncodeArray(_ context.Context, in codec.Spec, a *ndarray.Array) (*ndarray.Array, error) {
	d, err := c.directions(in.DataType)
	if err != nil {
		return nil, err
	}
	out, err := castArray(d.enc, d.encMap, in.Shape, a)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", Name, err)
	}
	return out, nil
}

// DecodeArray casts every element back to the array's type.
func (c *Codec) DecodeArray(_ context.Context, in codec.Spec, a *ndarray.Array) (*ndarray.Array, error) {
	d, err := c.directions(in.DataType)
	if err != nil {
		return nil, err
	}
	if !a.DType.Equal(c.target) {
		return nil, fmt.Errorf("%s: %w: encoded array of %s, want %s", Name, codec.ErrCorrupt, a.DType, c.target)
	}
	out, err := castArray(d.dec, d.decMap, in.Shape, a)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", Name, err)
	}
	return out, nil
}

// castArray casts the elements of a (of shape) by cs and m.
func castArray(cs caster, m scalarMap, shape []int, a *ndarray.Array) (*ndarray.Array, error) {
	n := ndarray.NumElements(shape)
	fs, ts := cs.from.dt.Size, cs.to.dt.Size
	if len(a.Data) != n*fs {
		return nil, fmt.Errorf("%w: array holds %d bytes, %s%v needs %d", codec.ErrCorrupt, len(a.Data), cs.from.dt, shape, n*fs)
	}
	out := &ndarray.Array{DType: cs.to.dt, Shape: append([]int(nil), shape...), Data: make([]byte, n*ts)}
	for i := range n {
		src := a.Data[i*fs : (i+1)*fs]
		if v, ok := m.lookup(cs.from, src); ok {
			copy(out.Data[i*ts:], v)
			continue
		}
		v, err := cs.cast(cs.from.num.Load(src))
		if err != nil {
			return nil, fmt.Errorf("element %d: %w", i, err)
		}
		cs.to.num.Store(out.Data[i*ts:(i+1)*ts], v)
	}
	return out, nil
}

// castOne casts one element.
func castOne(cs caster, m scalarMap, src []byte) ([]byte, error) {
	if v, ok := m.lookup(cs.from, src); ok {
		return v, nil
	}
	v, err := cs.cast(cs.from.num.Load(src))
	if err != nil {
		return nil, err
	}
	out := make([]byte, cs.to.dt.Size)
	cs.to.num.Store(out, v)
	return out, nil
}
