package sharding

import (
	"context"
	"fmt"

	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/shard"
)

// Occupancy implements codec.LayoutDescriber: it reads one shard's index
// and counts the inner chunks it stores. A missing shard is an error wrapping
// store.ErrNotFound.
func (c *Codec) Occupancy(ctx context.Context, in codec.Spec, src codec.RangeReader) (stored, total int, err error) {
	p, err := c.plan(ctx, in)
	if err != nil {
		return 0, 0, err
	}
	ix, _, err := c.reader(p).Index(ctx, src)
	if err != nil {
		return 0, 0, fmt.Errorf("%s: %w", Name, err)
	}
	for i := 0; i < ix.Len(); i++ {
		if !ix.At(i).Empty() {
			stored++
		}
	}
	return stored, ix.Len(), nil
}

var _ codec.LayoutDescriber = (*Codec)(nil)

// DescribeLayout implements codec.LayoutDescriber: the shard layout (see
// Describe) of shards of spec in, and how many inner chunks one holds.
func (c *Codec) DescribeLayout(_ context.Context, in codec.Spec) (codec.Layout, error) {
	desc, err := Describe(c.Configuration(), in.Shape)
	if err != nil {
		return codec.Layout{}, err
	}
	cps, err := c.cfg.checkShard(in.Shape)
	if err != nil {
		return codec.Layout{}, fmt.Errorf("%s: %w", Name, err)
	}
	return codec.Layout{Description: desc, InnerChunks: shard.Count(cps)}, nil
}

// NestedPipelines returns the pipeline of the inner chunks of a shard of
// spec in, which codec.Probe tries as it tries the shard's own chain.
func (c *Codec) NestedPipelines(ctx context.Context, in codec.Spec) ([]*codec.Pipeline, error) {
	p, err := c.plan(ctx, in)
	if err != nil {
		return nil, err
	}
	return []*codec.Pipeline{p.inner}, nil
}
