// Package vlen holds the "vlen-utf8" and "vlen-bytes" codecs (numcodecs
// VLenUTF8 / VLenBytes): array->bytes codecs for variable-length elements.
// Encoded chunk: uint32 LE element count, then for each element in C order
// a uint32 LE byte length and the bytes.
package vlen

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"

	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/extension"
	"github.com/zarrgw/zarrgw/core/ndarray"
)

// UTF8Registration registers "vlen-utf8" (numcodecs id "vlen-utf8").
var UTF8Registration = codec.Registration{
	Manifest: extension.Manifest{
		Kind:         extension.Codec,
		Name:         "vlen-utf8",
		Aliases:      []string{"numcodecs.vlen-utf8"},
		ConfigSchema: json.RawMessage(`{"type":"object","properties":{}}`),
	},
	New: NewUTF8,
}

// BytesRegistration registers "vlen-bytes" (numcodecs id "vlen-bytes").
var BytesRegistration = codec.Registration{
	Manifest: extension.Manifest{
		Kind:         extension.Codec,
		Name:         "vlen-bytes",
		Aliases:      []string{"numcodecs.vlen-bytes"},
		ConfigSchema: json.RawMessage(`{"type":"object","properties":{}}`),
	},
	New: NewBytes,
}

// Codec is vlen-utf8 or vlen-bytes; the two share one byte format. It is
// immutable and safe for concurrent use.
type Codec struct {
	name string
}

// NewUTF8 builds vlen-utf8; it takes no configuration.
func NewUTF8(context.Context, json.RawMessage, codec.Resolver) (codec.Codec, error) {
	return &Codec{"vlen-utf8"}, nil
}

// NewBytes builds vlen-bytes; it takes no configuration.
func NewBytes(context.Context, json.RawMessage, codec.Resolver) (codec.Codec, error) {
	return &Codec{"vlen-bytes"}, nil
}

func (c *Codec) Name() string { return c.name }

// Configuration is empty, as zarr-python writes it.
func (c *Codec) Configuration() json.RawMessage { return json.RawMessage(`{}`) }

// Encode writes the count, then each element's length and bytes, into one
// buffer sized in advance.
func (c *Codec) Encode(_ context.Context, in codec.Spec, a *ndarray.Array) ([]byte, error) {
	if !in.DataType.Variable() {
		return nil, fmt.Errorf("%s: data type %s is not variable-length", c.name, in.DataType)
	}
	n := ndarray.NumElements(in.Shape)
	if len(a.Strings) != n {
		return nil, fmt.Errorf("%s: array holds %d elements, spec %v needs %d", c.name, len(a.Strings), in.Shape, n)
	}
	size := 4 + 4*n
	for _, s := range a.Strings {
		if len(s) > math.MaxUint32 {
			return nil, fmt.Errorf("%s: element of %d bytes is too long for the format", c.name, len(s))
		}
		size += len(s)
	}
	out := make([]byte, 4, size)
	binary.LittleEndian.PutUint32(out, uint32(n))
	for _, s := range a.Strings {
		out = binary.LittleEndian.AppendUint32(out, uint32(len(s)))
		out = append(out, s...)
	}
	return out, nil
}

// Decode checks the count against the spec and every length against the
// remaining input (numcodecs' checks). Strings are sliced out of a single copy of b, so
// decoding allocates twice however many elements there are. Invalid UTF-8
// is kept byte for byte (vlen-utf8 does not repair it).
func (c *Codec) Decode(_ context.Context, in codec.Spec, b []byte) (*ndarray.Array, error) {
	if !in.DataType.Variable() {
		return nil, fmt.Errorf("%s: data type %s is not variable-length", c.name, in.DataType)
	}
	want := ndarray.NumElements(in.Shape)
	if len(b) < 4 {
		return nil, fmt.Errorf("%s: %w: %d bytes is too short for the element count", c.name, codec.ErrCorrupt, len(b))
	}
	if n := binary.LittleEndian.Uint32(b); uint64(n) != uint64(want) {
		return nil, fmt.Errorf("%s: %w: chunk holds %d elements, spec %v needs %d", c.name, codec.ErrCorrupt, n, in.Shape, want)
	}
	if uint64(len(b)-4)/4 < uint64(want) { // each element needs at least its length field
		return nil, fmt.Errorf("%s: %w: %d bytes cannot hold %d elements", c.name, codec.ErrCorrupt, len(b), want)
	}
	all := string(b)
	out := make([]string, want)
	pos := 4
	for i := range out {
		if len(all)-pos < 4 {
			return nil, fmt.Errorf("%s: %w: truncated at element %d", c.name, codec.ErrCorrupt, i)
		}
		l := uint64(binary.LittleEndian.Uint32(b[pos:]))
		pos += 4
		if l > uint64(len(all)-pos) {
			return nil, fmt.Errorf("%s: %w: element %d of %d bytes runs past the end", c.name, codec.ErrCorrupt, i, l)
		}
		out[i] = all[pos : pos+int(l)]
		pos += int(l)
	}
	// Bytes after the last element are ignored, as numcodecs does.
	return &ndarray.Array{DType: in.DataType, Shape: append([]int(nil), in.Shape...), Strings: out}, nil
}
