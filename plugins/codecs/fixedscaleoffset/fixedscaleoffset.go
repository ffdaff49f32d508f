// Package fixedscaleoffset is the numcodecs "fixedscaleoffset" filter: an
// array->array codec storing round((x - offset) * scale) as astype, and
// decoding x = stored / scale + offset. It is lossy by design.
package fixedscaleoffset

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/dtype"
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
	dtypeStr, astypeStr string
	dt, as              dtype.DataType
	dtNum, asNum        numeric.Type
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
	c := &Codec{offsetRaw: cfg.Offset, scaleRaw: cfg.Scale, dtypeStr: cfg.DType, astypeStr: cfg.AsType}
	var err error
	if c.offset, err = required("offset", cfg.Offset); err != nil {
		return nil, err
	}
	if c.scale, err = required("scale", cfg.Scale); err != nil {
		return nil, err
	}
	if cfg.DType != "" {
		if c.dt, c.dtNum, err = numeric.ParseType(cfg.DType); err != nil {
			return nil, fmt.Errorf("fixedscaleoffset: dtype: %w", err)
		}
	}
	if cfg.AsType != "" {
		if c.as, c.asNum, err = numeric.ParseType(cfg.AsType); err != nil {
			return nil, fmt.Errorf("fixedscaleoffset: astype: %w", err)
		}
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
	cfg := map[string]any{"offset": c.offsetRaw, "scale": c.scaleRaw}
	if c.dtypeStr != "" {
		cfg["dtype"] = c.dtypeStr
	}
	if c.astypeStr != "" {
		cfg["astype"] = c.astypeStr
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // keep "<f4" readable
	enc.Encode(cfg)
	return bytes.TrimSpace(buf.Bytes())
}

// types resolves dtype and astype for an input of type in.
func (c *Codec) types(in dtype.DataType) (as dtype.DataType, dtNum, asNum numeric.Type, err error) {
	dt, dtNum := c.dt, c.dtNum
	if c.dtypeStr == "" {
		if dtNum, err = numeric.Of(in); err != nil {
			return as, dtNum, asNum, fmt.Errorf("fixedscaleoffset: %w", err)
		}
		dt = in
	}
	if dt.Size != in.Size || in.Variable() {
		return as, dtNum, asNum, fmt.Errorf("fixedscaleoffset: dtype %s does not match the array's type %s", dt, in)
	}
	as, asNum = c.as, c.asNum
	if c.astypeStr == "" {
		as, asNum = dt, dtNum
	}
	return as, dtNum, asNum, nil
}

// OutputSpec gives the encoded type (astype) and the encoded fill value.
func (c *Codec) OutputSpec(in codec.Spec) (codec.Spec, error) {
	as, dtNum, asNum, err := c.types(in.DataType)
	if err != nil {
		return codec.Spec{}, err
	}
	out := in
	out.DataType = as
	if len(in.FillValue) == dtNum.Size {
		out.FillValue = make([]byte, asNum.Size)
		asNum.Store(out.FillValue, c.encode(dtNum, dtNum.Load(in.FillValue)))
	}
	return out, nil
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
	as, dtNum, asNum, err := c.types(in.DataType)
	if err != nil {
		return nil, err
	}
	n := ndarray.NumElements(in.Shape)
	if len(a.Data) != n*dtNum.Size {
		return nil, fmt.Errorf("fixedscaleoffset: array holds %d bytes, spec %s%v needs %d", len(a.Data), in.DataType, in.Shape, n*dtNum.Size)
	}
	out := &ndarray.Array{DType: as, Shape: append([]int(nil), in.Shape...), Data: make([]byte, n*asNum.Size)}
	for i := range n {
		asNum.Store(out.Data[i*asNum.Size:], c.encode(dtNum, dtNum.Load(a.Data[i*dtNum.Size:])))
	}
	return out, nil
}

// DecodeArray decodes every element into the spec's type.
func (c *Codec) DecodeArray(_ context.Context, in codec.Spec, a *ndarray.Array) (*ndarray.Array, error) {
	_, dtNum, asNum, err := c.types(in.DataType)
	if err != nil {
		return nil, err
	}
	n := ndarray.NumElements(in.Shape)
	if len(a.Data) != n*asNum.Size {
		return nil, fmt.Errorf("fixedscaleoffset: %w: encoded array holds %d bytes, want %d", codec.ErrCorrupt, len(a.Data), n*asNum.Size)
	}
	out := &ndarray.Array{DType: in.DataType, Shape: append([]int(nil), in.Shape...), Data: make([]byte, n*dtNum.Size)}
	if c.decodeFast(out.Data, a.Data, dtNum, asNum, n) {
		return out, nil
	}
	for i := range n {
		dtNum.Store(out.Data[i*dtNum.Size:], c.decode(asNum, asNum.Load(a.Data[i*asNum.Size:])))
	}
	return out, nil
}
