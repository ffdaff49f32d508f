// Package n5default is the n5_default codec of the zarr-extensions
// registry: an array->bytes codec that reads and writes N5 blocks in
// "default" mode: a header (mode 0, the number of dimensions, the block's
// shape, all big-endian) before the block's data, which goes through the
// codec chain of its configuration (a full transpose, big-endian bytes,
// at most one compressor). N5 blocks at the array's edge may be padded or
// truncated; a truncated block is read into a chunk of fill values.
package n5default

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"

	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/dtype"
	"github.com/zarrgw/zarrgw/core/extension"
	"github.com/zarrgw/zarrgw/core/grid"
	"github.com/zarrgw/zarrgw/core/meta"
	"github.com/zarrgw/zarrgw/core/ndarray"
	"github.com/zarrgw/zarrgw/plugins/codecs/internal/codecconfig"
)

// Name is the registered name.
const Name = "n5_default"

// Registration registers the codec as "n5_default".
var Registration = codec.Registration{
	Manifest: extension.Manifest{
		Kind: extension.Codec,
		Name: Name,
		ConfigSchema: json.RawMessage(`{"type":"object","required":["codecs"],"additionalProperties":false,"properties":{
	"codecs":{"type":"array","minItems":2,"maxItems":3,"description":"transpose (full reversal), bytes (big-endian), and at most one bytes->bytes codec"}}}`),
	},
	New: New,
}

// modeDefault is the N5 block mode this codec reads and writes.
const modeDefault = 0

// Codec is the codec; immutable and safe for concurrent use.
type Codec struct {
	config    json.RawMessage
	codecs    []codec.Codec
	rank      int  // the transpose's rank
	bigEndian bool // the bytes codec names "big" (else no byte order)
}

// New builds the codec and its nested chain (through r), checking the
// chain's shape as the spec requires.
func New(ctx context.Context, configuration json.RawMessage, r codec.Resolver) (codec.Codec, error) {
	var cfg struct {
		Codecs json.RawMessage `json:"codecs"`
	}
	raw, err := codecconfig.Decode(Name, configuration, &cfg)
	if err != nil {
		return nil, err
	}
	exts, err := codecconfig.Codecs(Name, cfg.Codecs)
	if err != nil {
		return nil, err
	}
	if len(exts) < 2 || len(exts) > 3 {
		return nil, fmt.Errorf("%s: codecs: %d codecs; want transpose, bytes and at most one bytes->bytes codec", Name, len(exts))
	}
	c := &Codec{config: raw}
	if c.rank, err = reversal(exts[0]); err != nil {
		return nil, fmt.Errorf("%s: codecs[0]: %w", Name, err)
	}
	if c.bigEndian, err = bigEndian(exts[1]); err != nil {
		return nil, fmt.Errorf("%s: codecs[1]: %w", Name, err)
	}
	for i, e := range exts {
		n, err := r.Codec(ctx, e.Name, e.Configuration)
		if err != nil {
			return nil, fmt.Errorf("%s: codecs[%d]: %w", Name, i, err)
		}
		if i == 2 && codec.KindOf(n) != codec.BytesToBytes {
			return nil, fmt.Errorf("%s: codecs[2]: %s is not a bytes->bytes codec", Name, e.Name)
		}
		c.codecs = append(c.codecs, n)
	}
	return c, nil
}

// reversal checks that e is a transpose with order [N-1, ..., 0] and
// returns N.
func reversal(e meta.Extension) (int, error) {
	var cfg struct {
		Order []int `json:"order"`
	}
	if e.Name != "transpose" || json.Unmarshal(e.Configuration, &cfg) != nil || cfg.Order == nil {
		return 0, fmt.Errorf("%s is not a transpose with an order", e.Name)
	}
	n := len(cfg.Order)
	if n > meta.DefaultMaxRank {
		return 0, fmt.Errorf("transpose of %d dimensions, more than %d", n, meta.DefaultMaxRank)
	}
	for i, o := range cfg.Order {
		if o != n-1-i {
			return 0, fmt.Errorf("transpose order %v is not the full reversal", cfg.Order)
		}
	}
	return n, nil
}

// bigEndian checks that e is a bytes codec, big-endian or with no byte
// order (which only 1-byte types may have).
func bigEndian(e meta.Extension) (bool, error) {
	var cfg struct {
		Endian *string `json:"endian"`
	}
	if e.Name != "bytes" || (len(e.Configuration) > 0 && json.Unmarshal(e.Configuration, &cfg) != nil) {
		return false, fmt.Errorf("%s is not a bytes codec", e.Name)
	}
	if cfg.Endian != nil && *cfg.Endian != "big" {
		return false, fmt.Errorf("bytes endian %q; N5 blocks are big-endian", *cfg.Endian)
	}
	return cfg.Endian != nil, nil
}

func (c *Codec) Name() string { return Name }

// Configuration returns the configuration as given.
func (c *Codec) Configuration() json.RawMessage { return c.config }

// check refuses chunk specs N5 cannot hold.
func (c *Codec) check(in codec.Spec) error {
	dt := in.DataType
	n5 := ((dt.Kind == dtype.Int || dt.Kind == dtype.Uint) && dt.Size <= 8) || (dt.Kind == dtype.Float && (dt.Size == 4 || dt.Size == 8))
	if !n5 {
		return fmt.Errorf("%s: data type %s has no N5 equivalent (u?int8..64, float32, float64)", Name, dt)
	}
	if !c.bigEndian && dt.Size > 1 {
		return fmt.Errorf("%s: the bytes codec names no byte order; %s needs \"big\"", Name, dt)
	}
	if len(in.Shape) != c.rank {
		return fmt.Errorf("%s: the transpose reverses %d dimensions, the chunk has %d", Name, c.rank, len(in.Shape))
	}
	if len(in.Shape) > 0xffff {
		return fmt.Errorf("%s: %d dimensions do not fit an N5 header", Name, len(in.Shape))
	}
	for _, d := range in.Shape {
		if int64(d) > 0xffffffff {
			return fmt.Errorf("%s: chunk dimension %d does not fit an N5 header", Name, d)
		}
	}
	return nil
}

// pipeline is the nested chain for a block of shape.
func (c *Codec) pipeline(ctx context.Context, in codec.Spec, shape []int) (*codec.Pipeline, error) {
	s := in
	s.Shape = shape
	p, err := codec.FromCodecs(ctx, c.codecs, s, in.MaxDecodedSize)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", Name, err)
	}
	return p, nil
}

// Encode writes the header and the chunk (whole: blocks zarrgw writes
// are padded, as zarr-python 2 and tensorstore write them).
func (c *Codec) Encode(ctx context.Context, in codec.Spec, a *ndarray.Array) ([]byte, error) {
	if err := c.check(in); err != nil {
		return nil, err
	}
	p, err := c.pipeline(ctx, in, in.Shape)
	if err != nil {
		return nil, err
	}
	body, err := p.Encode(ctx, a)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", Name, err)
	}
	n := len(in.Shape)
	out := make([]byte, 4+4*n, 4+4*n+len(body))
	binary.BigEndian.PutUint16(out, modeDefault)
	binary.BigEndian.PutUint16(out[2:], uint16(n))
	for i, d := range in.Shape {
		binary.BigEndian.PutUint32(out[4+4*i:], uint32(d))
	}
	return append(out, body...), nil
}

// Decode reads the header, decodes the block at its own shape (no larger
// than the chunk), and places it in a chunk of fill values.
func (c *Codec) Decode(ctx context.Context, in codec.Spec, b []byte) (*ndarray.Array, error) {
	if err := c.check(in); err != nil {
		return nil, err
	}
	n := len(in.Shape)
	if len(b) < 4+4*n {
		return nil, fmt.Errorf("%s: %w: %d bytes, shorter than the header", Name, codec.ErrCorrupt, len(b))
	}
	if mode := binary.BigEndian.Uint16(b); mode != modeDefault {
		return nil, fmt.Errorf("%s: %w: block mode %d, only default (0) is read", Name, codec.ErrCorrupt, mode)
	}
	if nd := int(binary.BigEndian.Uint16(b[2:])); nd != n {
		return nil, fmt.Errorf("%s: %w: block of %d dimensions in a %d-dimensional array", Name, codec.ErrCorrupt, nd, n)
	}
	shape := make([]int, n)
	whole := true
	for i := range shape {
		d := int64(binary.BigEndian.Uint32(b[4+4*i:]))
		if d > int64(in.Shape[i]) {
			return nil, fmt.Errorf("%s: %w: block shape exceeds the chunk %v in dimension %d (%d)", Name, codec.ErrCorrupt, in.Shape, i, d)
		}
		shape[i] = int(d)
		whole = whole && shape[i] == in.Shape[i]
	}
	p, err := c.pipeline(ctx, in, shape)
	if err != nil {
		return nil, err
	}
	block, err := p.Decode(ctx, b[4+4*n:])
	if err != nil {
		return nil, fmt.Errorf("%s: %w", Name, err)
	}
	if whole {
		return block, nil
	}
	out := ndarray.Filled(in.DataType, in.Shape, in.FillValue)
	sel := make([]grid.Span, n)
	for i, d := range shape {
		sel[i] = grid.Span{Start: 0, Step: 1, Count: d}
	}
	if err := ndarray.CopyRegion(out, sel, block, sel); err != nil {
		return nil, fmt.Errorf("%s: %w", Name, err)
	}
	return out, nil
}
