// Package transpose is the v3 "transpose" codec: an array->array codec that
// permutes the axes of a chunk (numpy.transpose(a, order)), so that the
// bytes codec after it writes the chunk in another memory order.
package transpose

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/extension"
	"github.com/zarrgw/zarrgw/core/ndarray"
)

// Registration registers the codec as "transpose".
var Registration = codec.Registration{
	Manifest: extension.Manifest{
		Kind: extension.Codec,
		Name: "transpose",
		ConfigSchema: json.RawMessage(`{"type":"object","required":["order"],"properties":{
	"order":{"type":"array","items":{"type":"integer","minimum":0},"description":"permutation of the array's axes"}}}`),
	},
	New: New,
}

// Codec is the transpose codec; immutable and safe for concurrent use.
type Codec struct {
	order  []int  // permutation: encoded axis i is input axis order[i]
	legacy string // "C" (identity) or "F" (reversed) from old metadata, else ""
}

// New builds the codec from {"order": [permutation]} or the legacy
// {"order": "C"|"F"}.
func New(_ context.Context, configuration json.RawMessage, _ codec.Resolver) (codec.Codec, error) {
	var cfg struct {
		Order json.RawMessage `json:"order"`
	}
	if len(configuration) > 0 && string(configuration) != "null" {
		if err := json.Unmarshal(configuration, &cfg); err != nil {
			return nil, fmt.Errorf("transpose: configuration: %w", err)
		}
	}
	if len(cfg.Order) == 0 {
		return nil, fmt.Errorf("transpose: configuration needs \"order\"")
	}
	var legacy string
	if json.Unmarshal(cfg.Order, &legacy) == nil {
		if legacy != "C" && legacy != "F" {
			return nil, fmt.Errorf("transpose: order %q is neither a permutation nor \"C\"/\"F\"", legacy)
		}
		return &Codec{legacy: legacy}, nil
	}
	var order []int
	if err := json.Unmarshal(cfg.Order, &order); err != nil {
		return nil, fmt.Errorf("transpose: order: %w", err)
	}
	return NewOrder(order)
}

// NewOrder returns a transpose codec for a permutation of 0..len(order)-1.
func NewOrder(order []int) (*Codec, error) {
	seen := make([]bool, len(order))
	for _, o := range order {
		if o < 0 || o >= len(order) || seen[o] {
			return nil, fmt.Errorf("transpose: order %v is not a permutation of 0..%d", order, len(order)-1)
		}
		seen[o] = true
	}
	return &Codec{order: slices.Clone(order)}, nil
}

func (c *Codec) Name() string { return "transpose" }

// Configuration returns {"order": [...]}, or the legacy string as given.
func (c *Codec) Configuration() json.RawMessage {
	var v any = c.order
	if c.legacy != "" {
		v = c.legacy
	}
	b, _ := json.Marshal(map[string]any{"order": v})
	return b
}

// perm returns the permutation for an array of ndim dimensions.
func (c *Codec) perm(ndim int) ([]int, error) {
	switch c.legacy {
	case "C":
		p := make([]int, ndim)
		for i := range p {
			p[i] = i
		}
		return p, nil
	case "F":
		p := make([]int, ndim)
		for i := range p {
			p[i] = ndim - 1 - i
		}
		return p, nil
	}
	if len(c.order) != ndim {
		return nil, fmt.Errorf("transpose: order %v has %d axes, the array %d", c.order, len(c.order), ndim)
	}
	return c.order, nil
}

// OutputSpec permutes the shape; type and fill value are unchanged.
func (c *Codec) OutputSpec(_ context.Context, in codec.Spec) (codec.Spec, error) {
	p, err := c.perm(len(in.Shape))
	if err != nil {
		return codec.Spec{}, err
	}
	out := in
	out.Shape = permuted(in.Shape, p)
	return out, nil
}

// EncodedSize implements codec.SizedCodec: the size does not change.
func (c *Codec) EncodedSize(_ context.Context, in codec.Spec, decodedSize int64) (int64, bool) {
	if in.DataType.Variable() {
		return -1, false
	}
	return decodedSize, true
}

func permuted(shape, p []int) []int {
	out := make([]int, len(p))
	for i, ax := range p {
		out[i] = shape[ax]
	}
	return out
}

func inverse(p []int) []int {
	inv := make([]int, len(p))
	for i, ax := range p {
		inv[ax] = i
	}
	return inv
}

// EncodeArray returns numpy.transpose(a, order) in C order.
func (c *Codec) EncodeArray(_ context.Context, in codec.Spec, a *ndarray.Array) (*ndarray.Array, error) {
	p, err := c.perm(len(in.Shape))
	if err != nil {
		return nil, err
	}
	if err := checkInput(a, in.Shape); err != nil {
		return nil, err
	}
	return apply(a, p), nil
}

// DecodeArray applies the inverse permutation to an encoded array.
func (c *Codec) DecodeArray(_ context.Context, in codec.Spec, a *ndarray.Array) (*ndarray.Array, error) {
	p, err := c.perm(len(in.Shape))
	if err != nil {
		return nil, err
	}
	if err := checkInput(a, permuted(in.Shape, p)); err != nil {
		return nil, fmt.Errorf("%w: %v", codec.ErrCorrupt, err)
	}
	out := apply(a, inverse(p))
	out.DType = in.DataType
	return out, nil
}

func checkInput(a *ndarray.Array, shape []int) error {
	if !slices.Equal(a.Shape, shape) {
		return fmt.Errorf("transpose: array shape %v, want %v", a.Shape, shape)
	}
	if err := a.Check(); err != nil {
		return fmt.Errorf("transpose: %w", err)
	}
	return nil
}

// apply returns a transposed by p. An identity permutation shares a's
// element storage (the pipeline hands codecs buffers they may keep).
func apply(a *ndarray.Array, p []int) *ndarray.Array {
	out := &ndarray.Array{DType: a.DType, Shape: permuted(a.Shape, p)}
	pl := simplify(a.Shape, p)
	switch {
	case len(pl.shape) <= 1 || a.Len() == 0:
		out.Data, out.Strings = a.Data, a.Strings
	case a.DType.Variable():
		out.Strings = make([]string, len(a.Strings))
		permute(out.Strings, a.Strings, pl)
	default:
		out.Data = make([]byte, len(a.Data))
		pl.unit *= a.DType.Size
		permuteBytes(out.Data, a.Data, pl)
	}
	return out
}
