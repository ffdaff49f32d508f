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
	p, err := c.plan(ctx, in)
	if err != nil {
		return nil, err
	}
	ix, err := p.format.Parse(ctx, b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", Name, err)
	}
	out := ndarray.New(in.DataType, in.Shape)
	if err := c.decodeAll(ctx, p, in, b, ix, out, grid.WholeSpans(in.Shape)); err != nil {
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
		return c.innerInto(ctx, p, shard.Chunk(b, e), i, dst, target, grid.WholeSpans(c.cfg.ChunkShape))
	})
}

// innerInto decodes the part inChunk of inner chunk i, stored as b, into
// the elements target of dst: straight into dst when the inner chain
// decodes into a buffer and the whole inner chunk lands there as one run
// in its own C order (ndarray.BlockRun), else through withInner and a
// copy.
func (c *Codec) innerInto(ctx context.Context, p *plan, b []byte, i int, dst *ndarray.Array, target, inChunk []grid.Span) error {
	if direct, _ := p.inner.Direct(); direct {
		if run, ok := ndarray.BlockRun(dst, target, c.cfg.ChunkShape, inChunk); ok {
			if err := p.inner.DecodeInto(ctx, b, run); err != nil {
				return fmt.Errorf("%s: inner chunk %v: %w", Name, shard.Coords(p.cps, i), err)
			}
			return nil
		}
	}
	return c.withInner(ctx, p, b, i, func(sub *ndarray.Array) error {
		return ndarray.CopyRegion(dst, target, sub, inChunk)
	})
}

// decodeWhole reads a whole shard, into a recycled buffer where the store
// allows, and decodes every inner chunk into dst.
func (c *Codec) decodeWhole(ctx context.Context, p *plan, in codec.Spec, src codec.RangeReader, dst *ndarray.Array, dstSel []grid.Span) error {
	buf, _ := c.shards.Get().(*[]byte)
	if buf == nil {
		buf = new([]byte)
	}
	b, ix, _, err := c.reader(p).Whole(ctx, src, *buf)
	if err != nil {
		c.shards.Put(buf)
		return fmt.Errorf("%s: %w", Name, err)
	}
	err = c.decodeAll(ctx, p, in, b, ix, dst, dstSel)
	if cap(b) > cap(*buf) && cap(b) <= maxPooledShard {
		*buf = b[:0] // the largest shard so far; nothing refers to it now
	}
	c.shards.Put(buf)
	return err
}

// maxPooledShard bounds the shard buffers kept for reuse, so that one huge
// shard does not pin its size in memory.
const maxPooledShard = 64 << 20

// withInner decodes inner chunk i from b and hands it to use, which must
// not keep it. Where the inner chain can decode into a buffer nothing is
// allocated: stored element bytes are used where they lie, compressed
// ones are decoded into a recycled buffer.
func (c *Codec) withInner(ctx context.Context, p *plan, b []byte, i int, use func(*ndarray.Array) error) error {
	ok, raw := p.inner.Direct()
	if !ok {
		sub, err := c.decodeInner(ctx, p, b, i)
		if err != nil {
			return err
		}
		return use(sub)
	}
	spec := p.inner.Spec()
	n := ndarray.NumElements(spec.Shape) * spec.DataType.Size
	sub := &ndarray.Array{DType: spec.DataType, Shape: spec.Shape}
	if raw {
		if len(b) != n {
			return fmt.Errorf("%s: inner chunk %v: %w: %d bytes, want %d", Name, shard.Coords(p.cps, i), codec.ErrCorrupt, len(b), n)
		}
		sub.Data = b
		return use(sub)
	}
	buf, _ := p.scratch.Get().(*[]byte)
	if buf == nil || len(*buf) != n {
		b := make([]byte, n)
		buf = &b
	}
	defer p.scratch.Put(buf)
	if err := p.inner.DecodeInto(ctx, b, *buf); err != nil {
		return fmt.Errorf("%s: inner chunk %v: %w", Name, shard.Coords(p.cps, i), err)
	}
	sub.Data = *buf
	return use(sub)
}

func (c *Codec) decodeInner(ctx context.Context, p *plan, b []byte, i int) (*ndarray.Array, error) {
	sub, err := p.inner.Decode(ctx, b)
	if err != nil {
		return nil, fmt.Errorf("%s: inner chunk %v: %w", Name, shard.Coords(p.cps, i), err)
	}
	return sub, nil
}
