package sharding

import (
	"context"
	"fmt"

	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/grid"
	"github.com/zarrgw/zarrgw/core/ndarray"
	"github.com/zarrgw/zarrgw/core/shard"
)

var (
	_ codec.PartialDecoder     = (*Codec)(nil)
	_ codec.PartialDecoderInto = (*Codec)(nil)
	_ codec.PartialEncoder     = (*Codec)(nil)
)

// DecodeRegion implements codec.PartialDecoder (see DecodeRegionInto). A
// region that is exactly one inner chunk comes back as that chunk's
// decoded array, without a further copy.
func (c *Codec) DecodeRegion(ctx context.Context, in codec.Spec, src codec.RangeReader, region []grid.Span) (*ndarray.Array, error) {
	p, err := c.plan(ctx, in)
	if err != nil {
		return nil, err
	}
	if k, ok := c.innerChunk(p, region); ok {
		chunks, err := c.reader(p).Chunks(ctx, src, []int{k})
		if err != nil {
			return nil, fmt.Errorf("%s: %w", Name, err)
		}
		if chunks[0] == nil {
			return ndarray.Filled(in.DataType, c.cfg.ChunkShape, in.FillValue), nil
		}
		return c.decodeInner(ctx, p, chunks[0], k)
	}
	counts := make([]int, len(region))
	for i, s := range region {
		counts[i] = s.Count
	}
	out := ndarray.New(in.DataType, counts)
	if err := c.DecodeRegionInto(ctx, in, src, region, out, grid.WholeSpans(counts)); err != nil {
		return nil, err
	}
	return out, nil
}

// DecodeRegionInto implements codec.PartialDecoderInto. A region covering
// the whole shard is read in one request; otherwise the index is read (or
// taken from the cache, confirmed by the version of the bytes read next),
// then the inner chunks the region touches, nearby ones coalesced into one
// request. A missing shard is an error wrapping store.ErrNotFound.
func (c *Codec) DecodeRegionInto(ctx context.Context, in codec.Spec, src codec.RangeReader, region []grid.Span, dst *ndarray.Array, dstSel []grid.Span) error {
	p, err := c.plan(ctx, in)
	if err != nil {
		return err
	}
	if covers(region, in.Shape) {
		return c.decodeWhole(ctx, p, in, src, dst, dstSel)
	}
	projs := p.grid.Project(selection(region))
	want := make([]int, len(projs))
	for k, pr := range projs {
		want[k] = shard.Flat(p.cps, pr.Chunk)
	}
	chunks, err := c.reader(p).Chunks(ctx, src, want)
	if err != nil {
		return fmt.Errorf("%s: %w", Name, err)
	}
	return parallel(ctx, len(projs), c.opts.Concurrency, func(k int) error {
		pr := projs[k]
		target := compose(dstSel, pr.Out)
		if chunks[k] == nil {
			ndarray.FillRegion(dst, target, in.FillValue)
			return nil
		}
		return c.innerInto(ctx, p, chunks[k], want[k], dst, target, pr.InChunk)
	})
}

// innerChunk reports whether region is exactly one inner chunk, and which.
func (c *Codec) innerChunk(p *plan, region []grid.Span) (int, bool) {
	coords := make([]int, len(region))
	for d, s := range region {
		n := c.cfg.ChunkShape[d]
		if s.Start%n != 0 || s.Count != n || (n > 1 && s.Step != 1) {
			return 0, false
		}
		coords[d] = s.Start / n
	}
	return shard.Flat(p.cps, coords), true
}

// EncodeRegion implements codec.PartialEncoder: the inner chunks the region
// touches are re-encoded (decoded first where the region covers them only
// in part), every other stored inner chunk keeps its encoded bytes.
func (c *Codec) EncodeRegion(ctx context.Context, in codec.Spec, old []byte, region []grid.Span, src *ndarray.Array, srcSel []grid.Span) ([]byte, bool, error) {
	p, err := c.plan(ctx, in)
	if err != nil {
		return nil, false, err
	}
	chunks := make([][]byte, p.format.N())
	if old != nil {
		ix, err := p.format.Parse(ctx, old)
		if err != nil {
			return nil, false, fmt.Errorf("%s: %w", Name, err)
		}
		for i := range chunks {
			if e := ix.At(i); !e.Empty() {
				chunks[i] = shard.Chunk(old, e)
			}
		}
	}
	projs := p.grid.Project(selection(region))
	err = parallel(ctx, len(projs), c.opts.Concurrency, func(k int) error {
		pr := projs[k]
		i := shard.Flat(p.cps, pr.Chunk)
		base, err := c.innerBase(ctx, p, in, chunks[i], i, !pr.Full(p.grid))
		if err != nil {
			return err
		}
		if err := ndarray.CopyRegion(base, pr.InChunk, src, compose(srcSel, pr.Out)); err != nil {
			return err
		}
		chunks[i], err = c.encodeInner(ctx, p, base, in.FillValue)
		return err
	})
	if err != nil {
		return nil, false, err
	}
	empty := true
	for _, ch := range chunks {
		empty = empty && ch == nil
	}
	b, err := p.format.Assemble(ctx, chunks, p.order)
	return b, empty, err
}

// innerBase is the inner chunk a write is merged into: its decoded old
// contents when the write covers it only in part, else the fill value.
func (c *Codec) innerBase(ctx context.Context, p *plan, in codec.Spec, old []byte, i int, partial bool) (*ndarray.Array, error) {
	if old == nil || !partial {
		return ndarray.Filled(in.DataType, c.cfg.ChunkShape, in.FillValue), nil
	}
	sub, err := c.decodeInner(ctx, p, old, i)
	if err != nil {
		return nil, err
	}
	// Decoders may hand back the stored bytes themselves; the merge must
	// not write into the old shard.
	if sub.Data != nil {
		sub.Data = append([]byte(nil), sub.Data...)
	}
	return sub, nil
}
