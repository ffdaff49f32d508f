package json2

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/zarrgw/zarrgw/core/checked"
	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/ndarray"
)

// Decode parses the list, checks that its trailing shape and its elements
// (flat or nested) both match the spec's element count, and returns the
// strings. A JSON null (numcodecs can store None) becomes the empty
// string; numbers and other non-string values are refused.
func (c *Codec) Decode(_ context.Context, in codec.Spec, b []byte) (*ndarray.Array, error) {
	if !in.DataType.Variable() {
		return nil, fmt.Errorf("json2: data type %s is not an object (variable-length) type", in.DataType)
	}
	var items []json.RawMessage
	if err := json.Unmarshal(b, &items); err != nil {
		return nil, fmt.Errorf("json2: %w: %v", codec.ErrCorrupt, err)
	}
	if len(items) < 2 {
		return nil, fmt.Errorf("json2: %w: list of %d items lacks the dtype and shape", codec.ErrCorrupt, len(items))
	}
	want := ndarray.NumElements(in.Shape)
	var shape []int
	if err := json.Unmarshal(items[len(items)-1], &shape); err != nil {
		return nil, fmt.Errorf("json2: %w: shape %s: %v", codec.ErrCorrupt, items[len(items)-1], err)
	}
	if n, ok := checked.Product(shape); !ok || n != want {
		return nil, fmt.Errorf("json2: %w: stored shape %v, spec %v", codec.ErrCorrupt, shape, in.Shape)
	}
	out := make([]string, 0, want)
	out, err := flatten(out, items[:len(items)-2], want)
	if err != nil {
		return nil, err
	}
	if len(out) != want {
		return nil, fmt.Errorf("json2: %w: %d elements, spec %v needs %d", codec.ErrCorrupt, len(out), in.Shape, want)
	}
	return &ndarray.Array{DType: in.DataType, Shape: append([]int(nil), in.Shape...), Strings: out}, nil
}

// flatten appends the strings of items, descending into nested lists, and
// stops once more than max have been seen.
func flatten(out []string, items []json.RawMessage, max int) ([]string, error) {
	for _, raw := range items {
		if len(out) > max {
			break
		}
		switch first(raw) {
		case '"':
			var s string
			if err := json.Unmarshal(raw, &s); err != nil {
				return nil, fmt.Errorf("json2: %w: %v", codec.ErrCorrupt, err)
			}
			out = append(out, s)
		case 'n':
			out = append(out, "")
		case '[':
			var inner []json.RawMessage
			if err := json.Unmarshal(raw, &inner); err != nil {
				return nil, fmt.Errorf("json2: %w: %v", codec.ErrCorrupt, err)
			}
			var err error
			if out, err = flatten(out, inner, max); err != nil {
				return nil, err
			}
		default:
			return nil, fmt.Errorf("json2: %w: element %.20s is not a string", codec.ErrCorrupt, raw)
		}
	}
	return out, nil
}

func first(raw json.RawMessage) byte {
	for _, c := range raw {
		if c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			return c
		}
	}
	return 0
}
