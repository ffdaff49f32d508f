package sharding

import (
	"context"
	"fmt"

	"github.com/zarrgw/zarrgw/core/codec"
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
	return c.decodeAll(ctx, p, in, b, ix)
}

// decodeAll assembles the shard from the inner chunks located by ix.
func (c *Codec) decodeAll(ctx context.Context, p *plan, in codec.Spec, b []byte, ix *shard.Index) (*ndarray.Array, error) {
	out := ndarray.New(in.DataType, in.Shape)
	err := parallel(ctx, ix.Len(), c.opts.Concurrency, func(i int) error {
		region := innerRegion(shard.Coords(p.cps, i), c.cfg.ChunkShape)
		e := ix.At(i)
		if e.Empty() {
			ndarray.FillRegion(out, region, in.FillValue)
			return nil
		}
		sub, err := c.decodeInner(ctx, p, shard.Chunk(b, e), i)
		if err != nil {
			return err
		}
		return ndarray.CopyRegion(out, region, sub, whole(sub.Shape))
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

func (c *Codec) decodeInner(ctx context.Context, p *plan, b []byte, i int) (*ndarray.Array, error) {
	sub, err := p.inner.Decode(ctx, b)
	if err != nil {
		return nil, fmt.Errorf("%s: inner chunk %v: %w", Name, shard.Coords(p.cps, i), err)
	}
	return sub, nil
}
