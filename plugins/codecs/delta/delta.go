// Package delta is the numcodecs "delta" filter: an array->array codec that
// stores the first element and then the differences between neighbours of
// the flattened (C order) chunk, so that smooth data compresses better.
package delta

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/zarrgw/zarrgw/core/codec"
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
	types numeric.Filter
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
	types, err := numeric.NewFilter("delta", cfg.DType, cfg.AsType)
	if err != nil {
		return nil, err
	}
	return &Codec{types: types}, nil
}

func (c *Codec) Name() string { return "numcodecs.delta" }

// Configuration returns the type strings as configured.
func (c *Codec) Configuration() json.RawMessage { return c.types.Configuration(map[string]any{}) }

// OutputSpec gives the encoded type (astype); the fill value is cast to it.
func (c *Codec) OutputSpec(_ context.Context, in codec.Spec) (codec.Spec, error) {
	return c.types.OutputSpec(in, nil)
}

// EncodeArray returns out[0] = x[0], out[i] = x[i] - x[i-1] (computed in
// dtype, as numpy.diff does, then cast to astype).
func (c *Codec) EncodeArray(_ context.Context, in codec.Spec, a *ndarray.Array) (*ndarray.Array, error) {
	out, dtNum, asNum, err := c.types.Encoding(in, a)
	if err != nil {
		return nil, err
	}
	if sameIntegers(dtNum, asNum) {
		diffInts(out.Data, a.Data, dtNum.Size)
	} else {
		diffValues(out.Data, a.Data, dtNum, asNum, out.Len())
	}
	return out, nil
}

// DecodeArray returns the cumulative sum (accumulated in dtype, as
// numpy.cumsum into a dtype array does) as an array of the spec's type.
func (c *Codec) DecodeArray(_ context.Context, in codec.Spec, a *ndarray.Array) (*ndarray.Array, error) {
	out, dtNum, asNum, err := c.types.Decoding(in, a)
	if err != nil {
		return nil, err
	}
	if sameIntegers(dtNum, asNum) {
		sumInts(out.Data, a.Data, dtNum.Size)
	} else {
		sumValues(out.Data, a.Data, dtNum, asNum, out.Len())
	}
	return out, nil
}
