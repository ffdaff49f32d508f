// Package fixedscaleoffset is the numcodecs "fixedscaleoffset" filter: an
// array->array codec storing round((x - offset) * scale) as astype, and
// decoding x = stored / scale + offset. It is lossy by design.
package fixedscaleoffset

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/extension"
	"github.com/zarrgw/zarrgw/core/ndarray"
	"github.com/zarrgw/zarrgw/plugins/codecs/internal/numeric"
)

// Registration registers the codec as "numcodecs.fixedscaleoffset" and
// "fixedscaleoffset".
var Registration = codec.Registration{
	Manifest: extension.Manifest{
		Kind:    extension.Codec,
		Name:    "numcodecs.fixedscaleoffset",
		Aliases: []string{"fixedscaleoffset"},
		ConfigSchema: json.RawMessage(`{"type":"object","required":["offset","scale"],"properties":{
	"offset":{"type":"number"},
	"scale":{"type":"number"},
	"dtype":{"type":"string"},
	"astype":{"type":"string"}}}`),
	},
	New: New,
}

// Codec is the filter; immutable and safe for concurrent use.
type Codec struct {
	offsetRaw, scaleRaw json.RawMessage
	offset, scale       numeric.Value
	types               numeric.Filter
}

// New builds the codec from {"offset": n, "scale": n, "dtype": ...,
// "astype": ...}. offset and scale are required; astype defaults to
// dtype, and dtype, when absent, is the array's type.
func New(_ context.Context, configuration json.RawMessage, _ codec.Resolver) (codec.Codec, error) {
	var cfg struct {
		Offset json.RawMessage `json:"offset"`
		Scale  json.RawMessage `json:"scale"`
		DType  string          `json:"dtype"`
		AsType string          `json:"astype"`
	}
	if len(configuration) > 0 && string(configuration) != "null" {
		if err := json.Unmarshal(configuration, &cfg); err != nil {
			return nil, fmt.Errorf("fixedscaleoffset: configuration: %w", err)
		}
	}
	c := &Codec{offsetRaw: cfg.Offset, scaleRaw: cfg.Scale}
	var err error
	if c.offset, err = required("offset", cfg.Offset); err != nil {
		return nil, err
	}
	if c.scale, err = required("scale", cfg.Scale); err != nil {
		return nil, err
	}
	if c.types, err = numeric.NewFilter("fixedscaleoffset", cfg.DType, cfg.AsType); err != nil {
		return nil, err
	}
	return c, nil
}

func required(name string, raw json.RawMessage) (numeric.Value, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return numeric.Value{}, fmt.Errorf("fixedscaleoffset: configuration needs %q", name)
	}
	v, err := numeric.Scalar(raw)
	if err != nil {
		return v, fmt.Errorf("fixedscaleoffset: %s: %w", name, err)
	}
	return v, nil
}

func (c *Codec) Name() string { return "numcodecs.fixedscaleoffset" }

// Configuration returns the configuration with numbers and type strings
// as they were given.
func (c *Codec) Configuration() json.RawMessage {
	return c.types.Configuration(map[string]any{"offset": c.offsetRaw, "scale": c.scaleRaw})
}

// OutputSpec gives the encoded type (astype) and the encoded fill value.
func (c *Codec) OutputSpec(_ context.Context, in codec.Spec) (codec.Spec, error) {
	return c.types.OutputSpec(in, c.encode)
}

// encode is one element of numpy's around((x - offset) * scale): each
// operation in the type numpy gives an array op a Python scalar.
func (c *Codec) encode(dt numeric.Type, x numeric.Value) numeric.Value {
	t1 := dt.WithScalar(c.offset)
	v := t1.Sub(t1.Cast(x), t1.Cast(c.offset))
	t2 := t1.WithScalar(c.scale)
	v = t2.Mul(t2.Cast(v), t2.Cast(c.scale))
	return numeric.RoundEven(v)
}

// decode is one element of enc / scale + offset (true division).
func (c *Codec) decode(as numeric.Type, e numeric.Value) numeric.Value {
	t1 := as.DivType()
	v := t1.Div(t1.Cast(e), t1.Cast(c.scale))
	t2 := t1.WithScalar(c.offset)
	return t2.Add(t2.Cast(v), t2.Cast(c.offset))
}

// EncodeArray encodes every element, then casts to astype (floats truncate
// toward zero, integers wrap, as numpy's astype).
func (c *Codec) EncodeArray(_ context.Context, in codec.Spec, a *ndarray.Array) (*ndarray.Array, error) {
	out, dtNum, asNum, err := c.types.Encoding(in, a)
	if err != nil {
		return nil, err
	}
	for i := range out.Len() {
		asNum.Store(out.Data[i*asNum.Size:], c.encode(dtNum, dtNum.Load(a.Data[i*dtNum.Size:])))
	}
	return out, nil
}

// DecodeArray decodes every element into the spec's type.
func (c *Codec) DecodeArray(_ context.Context, in codec.Spec, a *ndarray.Array) (*ndarray.Array, error) {
	out, dtNum, asNum, err := c.types.Decoding(in, a)
	if err != nil {
		return nil, err
	}
	n := out.Len()
	if c.decodeFast(out.Data, a.Data, dtNum, asNum, n) {
		return out, nil
	}
	for i := range n {
		dtNum.Store(out.Data[i*dtNum.Size:], c.decode(asNum, asNum.Load(a.Data[i*asNum.Size:])))
	}
	return out, nil
}
