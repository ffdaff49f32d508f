// Package quantize is the numcodecs "quantize" filter: an array->array
// codec that rounds floats to a number of decimal digits (by rounding to a
// power of two at least that fine) and stores them as astype. Decoding is
// a plain cast back. It is lossy by design.
package quantize

import (
	"context"
	"encoding/json"
	"fmt"
	"math"

	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/dtype"
	"github.com/zarrgw/zarrgw/core/extension"
	"github.com/zarrgw/zarrgw/core/ndarray"
	"github.com/zarrgw/zarrgw/plugins/codecs/internal/numeric"
)

// Registration registers the codec as "numcodecs.quantize" and "quantize".
var Registration = codec.Registration{
	Manifest: extension.Manifest{
		Kind:    extension.Codec,
		Name:    "numcodecs.quantize",
		Aliases: []string{"quantize"},
		ConfigSchema: json.RawMessage(`{"type":"object","required":["digits","dtype"],"properties":{
	"digits":{"type":"integer","description":"decimal digits kept"},
	"dtype":{"type":"string","description":"float type of the data"},
	"astype":{"type":"string","description":"float type stored (default: dtype)"}}}`),
	},
	New: New,
}

// Codec is the filter; immutable and safe for concurrent use.
type Codec struct {
	digits              int
	scale               float64
	dtypeStr, astypeStr string
	dt, as              dtype.DataType
	dtNum, asNum        numeric.Type
}

// New builds the codec from {"digits": n, "dtype": "<f8", "astype": ...}
// (astype defaults to dtype).
func New(_ context.Context, configuration json.RawMessage, _ codec.Resolver) (codec.Codec, error) {
	var cfg struct {
		Digits *int   `json:"digits"`
		DType  string `json:"dtype"`
		AsType string `json:"astype"`
	}
	if err := json.Unmarshal(configuration, &cfg); err != nil {
		return nil, fmt.Errorf("quantize: configuration: %w", err)
	}
	if cfg.Digits == nil || cfg.DType == "" {
		return nil, fmt.Errorf("quantize: configuration needs \"digits\" and \"dtype\"")
	}
	c := &Codec{digits: *cfg.Digits, dtypeStr: cfg.DType, astypeStr: cfg.AsType}
	var err error
	if c.dt, c.dtNum, err = numeric.ParseType(cfg.DType); err != nil || !c.dtNum.IsFloat() {
		return nil, fmt.Errorf("quantize: dtype %q: only float types can be quantized", cfg.DType)
	}
	c.as, c.asNum = c.dt, c.dtNum
	if cfg.AsType != "" {
		if c.as, c.asNum, err = numeric.ParseType(cfg.AsType); err != nil || !c.asNum.IsFloat() {
			return nil, fmt.Errorf("quantize: astype %q: must be a float type", cfg.AsType)
		}
	}
	c.scale = scaleFor(c.digits)
	return c, nil
}

// scaleFor is numcodecs' power of two finer than 10^-digits.
func scaleFor(digits int) float64 {
	exp := math.Log10(math.Pow(10, -float64(digits)))
	if exp < 0 {
		exp = math.Floor(exp)
	} else {
		exp = math.Ceil(exp)
	}
	bits := math.Ceil(math.Log2(math.Pow(10, -exp)))
	return math.Pow(2, bits)
}

func (c *Codec) Name() string { return "numcodecs.quantize" }

// Configuration returns the configuration as given.
func (c *Codec) Configuration() json.RawMessage {
	cfg := map[string]any{"digits": c.digits, "dtype": c.dtypeStr}
	if c.astypeStr != "" {
		cfg["astype"] = c.astypeStr
	}
	b, _ := json.Marshal(cfg)
	return b
}

func (c *Codec) check(in dtype.DataType) error {
	if !in.Equal(c.dt) {
		return fmt.Errorf("quantize: dtype %s does not match the array's type %s", c.dtypeStr, in)
	}
	return nil
}

// OutputSpec gives the stored type (astype).
func (c *Codec) OutputSpec(_ context.Context, in codec.Spec) (codec.Spec, error) {
	if err := c.check(in.DataType); err != nil {
		return codec.Spec{}, err
	}
	out := in
	out.DataType = c.as
	if len(in.FillValue) == c.dtNum.Size {
		out.FillValue = make([]byte, c.asNum.Size)
		c.asNum.Store(out.FillValue, c.quantize(c.dtNum.Load(in.FillValue)))
	}
	return out, nil
}

// quantize is around(scale * x) / scale computed in the array's float
// type, as numpy does for a float array and a Python float.
func (c *Codec) quantize(x numeric.Value) numeric.Value {
	t := c.dtNum
	v := t.Mul(t.Cast(x), t.Cast(numeric.Float(c.scale)))
	v = numeric.RoundEven(v)
	return t.Div(v, t.Cast(numeric.Float(c.scale)))
}

// EncodeArray quantizes every element and casts it to astype.
func (c *Codec) EncodeArray(_ context.Context, in codec.Spec, a *ndarray.Array) (*ndarray.Array, error) {
	if err := c.check(in.DataType); err != nil {
		return nil, err
	}
	n := ndarray.NumElements(in.Shape)
	if len(a.Data) != n*c.dtNum.Size {
		return nil, fmt.Errorf("quantize: array holds %d bytes, spec needs %d", len(a.Data), n*c.dtNum.Size)
	}
	out := &ndarray.Array{DType: c.as, Shape: append([]int(nil), in.Shape...), Data: make([]byte, n*c.asNum.Size)}
	for i := range n {
		v := c.quantize(c.dtNum.Load(a.Data[i*c.dtNum.Size:]))
		c.asNum.Store(out.Data[i*c.asNum.Size:], c.asNum.Cast(v))
	}
	return out, nil
}

// DecodeArray casts the stored floats back to the array's type.
func (c *Codec) DecodeArray(_ context.Context, in codec.Spec, a *ndarray.Array) (*ndarray.Array, error) {
	if err := c.check(in.DataType); err != nil {
		return nil, err
	}
	n := ndarray.NumElements(in.Shape)
	if len(a.Data) != n*c.asNum.Size {
		return nil, fmt.Errorf("quantize: %w: encoded array holds %d bytes, want %d", codec.ErrCorrupt, len(a.Data), n*c.asNum.Size)
	}
	out := &ndarray.Array{DType: in.DataType, Shape: append([]int(nil), in.Shape...), Data: make([]byte, n*c.dtNum.Size)}
	for i := range n {
		c.dtNum.Store(out.Data[i*c.dtNum.Size:], c.dtNum.Cast(c.asNum.Load(a.Data[i*c.asNum.Size:])))
	}
	return out, nil
}
