package sharding

import (
	"context"
	"fmt"

	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/grid"
	"github.com/zarrgw/zarrgw/core/ndarray"
	"github.com/zarrgw/zarrgw/core/shard"
)

// Decode decodes a whole shard; inner chunks not stored read as the fill
// value. A malformed shard is an error wrapping codec.ErrCorrupt.
func (c *Codec) Decode(ctx context.Context, in codec.Spec, b []byte) (*ndarray.Array, error) {
	p, err := c.plan(in)
	if err != nil {
		return nil, err
	}
	ix, err := p.format.Parse(ctx, b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", Name, err)
	}
	out := ndarray.New(in.DataType, in.Shape)
	if err := c.decodeAll(ctx, p, in, b, ix, out, whole(in.Shape)); err != nil {
		return nil, err
	}
	return out, nil
}

// decodeAll decodes every inner chunk located by ix into the elements of
// dst that dstSel places the shard at.
func (c *Codec) decodeAll(ctx context.Context, p *plan, in codec.Spec, b []byte, ix *shard.Index, dst *ndarray.Array, dstSel []grid.Span) error {
	return parallel(ctx, ix.Len(), c.opts.Concurrency, func(i int) error {
		target := compose(dstSel, innerRegion(shard.Coords(p.cps, i), c.cfg.ChunkShape))
		e := ix.At(i)
		if e.Empty() {
			ndarray.FillRegion(dst, target, in.FillValue)
			return nil
		}
		sub, err := c.decodeInner(ctx, p, shard.Chunk(b, e), i)
		if err != nil {
			return err
		}
		return ndarray.CopyRegion(dst, target, sub, whole(sub.Shape))
	})
}

func (c *Codec) decodeInner(ctx context.Context, p *plan, b []byte, i int) (*ndarray.Array, error) {
	sub, err := p.inner.Decode(ctx, b)
	if err != nil {
		return nil, fmt.Errorf("%s: inner chunk %v: %w", Name, shard.Coords(p.cps, i), err)
	}
	return sub, nil
}
