package sharding

import (
	"context"
	"fmt"

	"github.com/zarrgw/zarrgw/core/codec"
)

// Occupancy reads one shard's index and counts the inner chunks it stores
// (for `zarrgw inspect`). A missing shard is an error wrapping
// store.ErrNotFound.
func (c *Codec) Occupancy(ctx context.Context, in codec.Spec, src codec.RangeReader) (stored, total int, err error) {
	p, err := c.plan(in)
	if err != nil {
		return 0, 0, err
	}
	ix, _, err := c.reader(p).Index(ctx, newSource(src))
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

// InnerChunks is the number of inner chunks in a shard of shardShape.
func (c *Codec) InnerChunks(shardShape []int) (int, error) {
	cps, err := c.cfg.checkShard(shardShape)
	if err != nil {
		return 0, err
	}
	n := 1
	for _, k := range cps {
		n *= k
	}
	return n, nil
}
