// Package bytescodec is the v3 "bytes" codec (legacy name "endian"): the
// array->bytes codec that lays fixed-size elements out in C order in a
// chosen byte order.
//
// Buffer ownership: the pipeline hands codecs buffers they may keep. With
// little-endian output (the in-memory order) Encode returns the array's own
// Data and Decode wraps its input without copying; callers must not modify
// a buffer after handing it over.
package bytescodec

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/dtype"
	"github.com/zarrgw/zarrgw/core/extension"
	"github.com/zarrgw/zarrgw/core/ndarray"
)

// Registration registers the codec as "bytes" and its legacy name "endian".
var Registration = codec.Registration{
	Manifest: extension.Manifest{
		Kind:    extension.Codec,
		Name:    "bytes",
		Aliases: []string{"endian"},
		ConfigSchema: json.RawMessage(`{"type":"object","properties":{
	"endian":{"type":"string","enum":["little","big"],"description":"byte order of multi-byte types"}}}`),
	},
	New: New,
}

// Codec is the bytes codec. It is immutable and safe for concurrent use.
type Codec struct {
	endian dtype.Endian // NoEndian when the configuration gave none
}

// New builds the codec from {"endian": "little"|"big"}; the configuration
// may be absent (1-byte types need no byte order).
func New(_ context.Context, configuration json.RawMessage, _ codec.Resolver) (codec.Codec, error) {
	var cfg struct {
		Endian *string `json:"endian"`
	}
	if len(configuration) > 0 && string(configuration) != "null" {
		if err := json.Unmarshal(configuration, &cfg); err != nil {
			return nil, fmt.Errorf("bytes: configuration: %w", err)
		}
	}
	c := &Codec{}
	if cfg.Endian != nil {
		switch *cfg.Endian {
		case "little":
			c.endian = dtype.Little
		case "big":
			c.endian = dtype.Big
		default:
			return nil, fmt.Errorf("bytes: endian must be \"little\" or \"big\", not %q", *cfg.Endian)
		}
	}
	return c, nil
}

// NewEndian returns a bytes codec for the given byte order.
func NewEndian(e dtype.Endian) *Codec { return &Codec{endian: e} }

func (c *Codec) Name() string { return "bytes" }

// Configuration returns {"endian": ...}, or nil when no byte order was set.
func (c *Codec) Configuration() json.RawMessage {
	switch c.endian {
	case dtype.Little:
		return json.RawMessage(`{"endian":"little"}`)
	case dtype.Big:
		return json.RawMessage(`{"endian":"big"}`)
	}
	return nil
}

// EncodedSize implements codec.SizedCodec: the encoding is the in-memory size.
func (c *Codec) EncodedSize(_ context.Context, in codec.Spec, decodedSize int64) (int64, bool) {
	if in.DataType.Variable() {
		return -1, false
	}
	return decodedSize, true
}

// swapUnit checks dt and returns the width of the groups to reverse, 1 when
// nothing needs swapping.
func (c *Codec) swapUnit(dt dtype.DataType) (int, error) {
	if dt.Variable() || dt.Size <= 0 {
		return 0, fmt.Errorf("bytes: cannot encode variable-length type %s (use vlen-utf8 or vlen-bytes)", dt)
	}
	if !dt.HasEndian() {
		return 1, nil
	}
	switch c.endian {
	case dtype.Little:
		return 1, nil
	case dtype.Big:
		if dt.Kind == dtype.Struct {
			return structSwap, nil
		}
		return dt.SwapUnit(), nil
	}
	if dt.Kind == dtype.Struct {
		// The legacy "structured" type was written without an endian,
		// which data-types/structured says to read as little endian.
		return 1, nil
	}
	return 0, fmt.Errorf("bytes: configuration needs \"endian\" for multi-byte type %s", dt)
}

// Encode returns the elements in the configured byte order: a.Data itself
// when no swap is needed.
func (c *Codec) Encode(_ context.Context, in codec.Spec, a *ndarray.Array) ([]byte, error) {
	unit, err := c.swapUnit(in.DataType)
	if err != nil {
		return nil, err
	}
	if want := ndarray.NumElements(in.Shape) * in.DataType.Size; len(a.Data) != want {
		return nil, fmt.Errorf("bytes: array holds %d bytes, spec %s%v needs %d", len(a.Data), in.DataType, in.Shape, want)
	}
	if unit == 1 {
		return a.Data, nil
	}
	out := make([]byte, len(a.Data))
	swapAs(out, a.Data, unit, in.DataType)
	return out, nil
}

// Decode returns the array of spec in held by b; b becomes the array's
// Data when no swap is needed.
func (c *Codec) Decode(_ context.Context, in codec.Spec, b []byte) (*ndarray.Array, error) {
	unit, err := c.swapUnit(in.DataType)
	if err != nil {
		return nil, err
	}
	if want := ndarray.NumElements(in.Shape) * in.DataType.Size; len(b) != want {
		return nil, fmt.Errorf("bytes: %w: %d bytes, %s%v needs %d", codec.ErrCorrupt, len(b), in.DataType, in.Shape, want)
	}
	a := &ndarray.Array{DType: in.DataType, Shape: append([]int(nil), in.Shape...), Data: b}
	if unit != 1 {
		a.Data = make([]byte, len(b))
		swapAs(a.Data, b, unit, in.DataType)
	}
	return a, nil
}

// RawLayout reports whether encoded bytes equal the in-memory bytes for in
// (no byte swap), so readers may decode straight into their output.
func (c *Codec) RawLayout(in codec.Spec) bool {
	unit, err := c.swapUnit(in.DataType)
	return err == nil && unit == 1 && !in.DataType.Variable()
}
