// Package delta is the numcodecs "delta" filter: an array->array codec that
// stores the first element and then the differences between neighbours of
// the flattened (C order) chunk, so that smooth data compresses better.
package delta

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

// Registration registers the codec as "numcodecs.delta" and "delta".
var Registration = codec.Registration{
	Manifest: extension.Manifest{
		Kind:    extension.Codec,
		Name:    "numcodecs.delta",
		Aliases: []string{"delta"},
		ConfigSchema: json.RawMessage(`{"type":"object","properties":{
	"dtype":{"type":"string","description":"numpy type of the decoded data (default: the array's)"},
	"astype":{"type":"string","description":"numpy type of the encoded differences (default: dtype)"}}}`),
	},
	New: New,
}

// Codec is the delta filter; immutable and safe for concurrent use.
type Codec struct {
	dtypeStr, astypeStr string // as configured (written back unchanged)
	dt, as              dtype.DataType
	dtNum, asNum        numeric.Type
}

// New builds the codec from {"dtype": ..., "astype": ...} (numpy type
// strings or names; astype defaults to dtype; dtype, when absent, is the
// array's type).
func New(_ context.Context, configuration json.RawMessage, _ codec.Resolver) (codec.Codec, error) {
	var cfg struct {
		DType  string `json:"dtype"`
		AsType string `json:"astype"`
	}
	if len(configuration) > 0 && string(configuration) != "null" {
		if err := json.Unmarshal(configuration, &cfg); err != nil {
			return nil, fmt.Errorf("delta: configuration: %w", err)
		}
	}
	c := &Codec{dtypeStr: cfg.DType, astypeStr: cfg.AsType}
	var err error
	if cfg.DType != "" {
		if c.dt, c.dtNum, err = numeric.ParseType(cfg.DType); err != nil {
			return nil, fmt.Errorf("delta: dtype: %w", err)
		}
	}
	if cfg.AsType != "" {
		if c.as, c.asNum, err = numeric.ParseType(cfg.AsType); err != nil {
			return nil, fmt.Errorf("delta: astype: %w", err)
		}
	}
	return c, nil
}

func (c *Codec) Name() string { return "numcodecs.delta" }

// Configuration returns the type strings as configured.
func (c *Codec) Configuration() json.RawMessage {
	cfg := map[string]string{}
	if c.dtypeStr != "" {
		cfg["dtype"] = c.dtypeStr
	}
	if c.astypeStr != "" {
		cfg["astype"] = c.astypeStr
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // keep "<i2" readable
	enc.Encode(cfg)
	return bytes.TrimSpace(buf.Bytes())
}

// types resolves dtype and astype for an input of type in.
func (c *Codec) types(in dtype.DataType) (dt, as dtype.DataType, dtNum, asNum numeric.Type, err error) {
	dt, dtNum = c.dt, c.dtNum
	if c.dtypeStr == "" {
		if dtNum, err = numeric.Of(in); err != nil {
			return dt, as, dtNum, asNum, fmt.Errorf("delta: %w", err)
		}
		dt = in
	}
	if dt.Size != in.Size || in.Variable() {
		return dt, as, dtNum, asNum, fmt.Errorf("delta: dtype %s does not match the array's type %s", dt, in)
	}
	as, asNum = c.as, c.asNum
	if c.astypeStr == "" {
		as, asNum = dt, dtNum
	}
	return dt, as, dtNum, asNum, nil
}

// OutputSpec gives the encoded type (astype); the fill value is cast to it.
func (c *Codec) OutputSpec(in codec.Spec) (codec.Spec, error) {
	_, as, dtNum, asNum, err := c.types(in.DataType)
	if err != nil {
		return codec.Spec{}, err
	}
	out := in
	out.DataType = as
	if len(in.FillValue) == dtNum.Size {
		out.FillValue = make([]byte, asNum.Size)
		asNum.Store(out.FillValue, dtNum.Load(in.FillValue))
	}
	return out, nil
}

// EncodeArray returns out[0] = x[0], out[i] = x[i] - x[i-1] (computed in
// dtype, as numpy.diff does, then cast to astype).
func (c *Codec) EncodeArray(_ context.Context, in codec.Spec, a *ndarray.Array) (*ndarray.Array, error) {
	_, as, dtNum, asNum, err := c.types(in.DataType)
	if err != nil {
		return nil, err
	}
	n := ndarray.NumElements(in.Shape)
	if len(a.Data) != n*dtNum.Size {
		return nil, fmt.Errorf("delta: array holds %d bytes, spec %s%v needs %d", len(a.Data), in.DataType, in.Shape, n*dtNum.Size)
	}
	out := &ndarray.Array{DType: as, Shape: append([]int(nil), in.Shape...), Data: make([]byte, n*asNum.Size)}
	if sameIntegers(dtNum, asNum) {
		diffInts(out.Data, a.Data, dtNum.Size)
	} else {
		diffValues(out.Data, a.Data, dtNum, asNum, n)
	}
	return out, nil
}

// DecodeArray returns the cumulative sum (accumulated in dtype, as
// numpy.cumsum into a dtype array does) as an array of the spec's type.
func (c *Codec) DecodeArray(_ context.Context, in codec.Spec, a *ndarray.Array) (*ndarray.Array, error) {
	_, _, dtNum, asNum, err := c.types(in.DataType)
	if err != nil {
		return nil, err
	}
	n := ndarray.NumElements(in.Shape)
	if len(a.Data) != n*asNum.Size {
		return nil, fmt.Errorf("delta: %w: encoded array holds %d bytes, want %d", codec.ErrCorrupt, len(a.Data), n*asNum.Size)
	}
	out := &ndarray.Array{DType: in.DataType, Shape: append([]int(nil), in.Shape...), Data: make([]byte, n*dtNum.Size)}
	if sameIntegers(dtNum, asNum) {
		sumInts(out.Data, a.Data, dtNum.Size)
	} else {
		sumValues(out.Data, a.Data, dtNum, asNum, n)
	}
	return out, nil
}
