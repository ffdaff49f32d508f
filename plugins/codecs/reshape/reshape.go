// Package reshape is the reshape codec of the zarr-extensions registry:
// an array->array codec that gives a chunk another shape with the same
// elements in the same (C) order. Each output dimension is a size, the
// product of a run of input dimensions ([0, 1]), or -1 (what is left).
package reshape

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/zarrgw/zarrgw/core/checked"
	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/extension"
	"github.com/zarrgw/zarrgw/core/meta"
	"github.com/zarrgw/zarrgw/core/ndarray"
	"github.com/zarrgw/zarrgw/plugins/codecs/internal/codecconfig"
)

// Name is the registered name.
const Name = "reshape"

// Registration registers the codec as "reshape".
var Registration = codec.Registration{
	Manifest: extension.Manifest{
		Kind: extension.Codec,
		Name: Name,
		ConfigSchema: json.RawMessage(`{"type":"object","required":["shape"],"additionalProperties":false,"properties":{
	"shape":{"type":"array","items":{"oneOf":[{"type":"integer","minimum":-1},{"type":"array","items":{"type":"integer","minimum":0}}]}}}}`),
	},
	New: New,
}

// dim is one output dimension: a size (> 0), the product of the input
// dimensions inputs (when inputs is not nil), or the rest (size -1).
type dim struct {
	size   int
	inputs []int
}

// Codec is the codec; immutable and safe for concurrent use.
type Codec struct {
	config json.RawMessage
	dims   []dim
}

// New builds the codec from {"shape": [...]}.
func New(_ context.Context, configuration json.RawMessage, _ codec.Resolver) (codec.Codec, error) {
	var cfg struct {
		Shape []json.RawMessage `json:"shape"`
	}
	if _, err := codecconfig.Decode(Name, configuration, &cfg); err != nil {
		return nil, err
	}
	if cfg.Shape == nil {
		return nil, fmt.Errorf("%s: configuration needs \"shape\"", Name)
	}
	if len(cfg.Shape) > meta.DefaultMaxRank {
		return nil, fmt.Errorf("%s: shape: %d dimensions, more than %d", Name, len(cfg.Shape), meta.DefaultMaxRank)
	}
	c := &Codec{}
	rest, last := 0, -1
	for i, raw := range cfg.Shape {
		var d dim
		if err := json.Unmarshal(raw, &d.inputs); err == nil && d.inputs != nil {
			for _, in := range d.inputs {
				if in <= last || in >= meta.DefaultMaxRank {
					return nil, fmt.Errorf("%s: shape[%d]: input dimensions must increase strictly over the whole shape (%d after %d)", Name, i, in, last)
				}
				last = in
			}
		} else if err := json.Unmarshal(raw, &d.size); err != nil || (d.size < 1 && d.size != -1) {
			return nil, fmt.Errorf("%s: shape[%d]: %s is neither a positive size, -1 nor a list of input dimensions", Name, i, raw)
		} else if d.size == -1 {
			if rest++; rest > 1 {
				return nil, fmt.Errorf("%s: shape: -1 appears more than once", Name)
			}
		}
		c.dims = append(c.dims, d)
	}
	b, err := json.Marshal(map[string]any{"shape": cfg.Shape})
	if err != nil {
		return nil, err
	}
	c.config = b
	return c, nil
}

func (c *Codec) Name() string { return Name }

// Configuration returns {"shape": [...]} as given.
func (c *Codec) Configuration() json.RawMessage { return c.config }

// shape is the output shape for an input of shape in, with the checks
// the spec requires.
func (c *Codec) shape(in []int) ([]int, error) {
	total, ok := checked.Product(in)
	if !ok {
		return nil, fmt.Errorf("%s: input shape %v overflows", Name, in)
	}
	out := make([]int, len(c.dims))
	known, rest := 1, -1
	for i, d := range c.dims {
		switch {
		case d.inputs != nil:
			p := 1
			for _, j := range d.inputs {
				if j >= len(in) {
					return nil, fmt.Errorf("%s: shape[%d] names input dimension %d of a %d-dimensional chunk", Name, i, j, len(in))
				}
				p *= in[j] // a factor of total, which did not overflow
			}
			out[i] = p
		case d.size == -1:
			rest = i
			continue
		default:
			out[i] = d.size
		}
		if known, ok = checked.Mul(known, out[i]); !ok {
			return nil, fmt.Errorf("%s: output shape overflows", Name)
		}
	}
	if rest >= 0 {
		if known == 0 || total%known != 0 {
			return nil, fmt.Errorf("%s: no size for -1 makes %d elements from %v", Name, total, out)
		}
		out[rest] = total / known
		known = total
	}
	if known != total {
		return nil, fmt.Errorf("%s: output shape %v holds %d elements, the chunk %v holds %d", Name, out, known, in, total)
	}
	for i, d := range c.dims {
		if len(d.inputs) == 0 {
			continue
		}
		before, _ := checked.Product(out[:i])
		inBefore, _ := checked.Product(in[:d.inputs[0]])
		after, _ := checked.Product(out[i+1:])
		inAfter, _ := checked.Product(in[d.inputs[len(d.inputs)-1]+1:])
		if before != inBefore || after != inAfter {
			return nil, fmt.Errorf("%s: shape[%d] = %v does not line up with the input dimensions it names in %v -> %v", Name, i, d.inputs, in, out)
		}
	}
	return out, nil
}

// OutputSpec gives the reshaped spec; type and fill value are unchanged.
func (c *Codec) OutputSpec(_ context.Context, in codec.Spec) (codec.Spec, error) {
	s, err := c.shape(in.Shape)
	if err != nil {
		return codec.Spec{}, err
	}
	out := in
	out.Shape = s
	return out, nil
}

// EncodedSize implements codec.SizedCodec: the size does not change.
func (c *Codec) EncodedSize(_ context.Context, _ codec.Spec, decodedSize int64) (int64, bool) {
	return decodedSize, true
}

// EncodeArray gives a the output shape; the elements are shared.
func (c *Codec) EncodeArray(_ context.Context, in codec.Spec, a *ndarray.Array) (*ndarray.Array, error) {
	s, err := c.shape(in.Shape)
	if err != nil {
		return nil, err
	}
	return c.view(a, s)
}

// DecodeArray gives a the chunk's shape back.
func (c *Codec) DecodeArray(_ context.Context, in codec.Spec, a *ndarray.Array) (*ndarray.Array, error) {
	if _, err := c.shape(in.Shape); err != nil {
		return nil, err
	}
	return c.view(a, in.Shape)
}

// view is a with another shape of as many elements (codecs never modify
// their input, so sharing the elements is safe).
func (c *Codec) view(a *ndarray.Array, shape []int) (*ndarray.Array, error) {
	if a.Len() != ndarray.NumElements(shape) || a.Check() != nil {
		return nil, fmt.Errorf("%s: %w: array %s%v cannot take shape %v", Name, codec.ErrCorrupt, a.DType, a.Shape, shape)
	}
	return &ndarray.Array{DType: a.DType, Shape: append([]int(nil), shape...), Data: a.Data, Strings: a.Strings}, nil
}
