package sharding

import (
	"context"
	"fmt"

	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/grid"
	"github.com/zarrgw/zarrgw/core/ndarray"
	"github.com/zarrgw/zarrgw/core/shard"
)

// Encode encodes a whole shard: every inner chunk through the inner chain,
// except those equal to the fill value, which are left out of the shard.
func (c *Codec) Encode(ctx context.Context, in codec.Spec, a *ndarray.Array) ([]byte, error) {
	p, err := c.plan(ctx, in)
	if err != nil {
		return nil, err
	}
	if err := a.Check(); err != nil {
		return nil, fmt.Errorf("%s: %w", Name, err)
	}
	chunks := make([][]byte, p.format.N())
	err = parallel(ctx, len(chunks), c.opts.Concurrency, func(i int) error {
		sub := ndarray.New(in.DataType, c.cfg.ChunkShape)
		region := innerRegion(shard.Coords(p.cps, i), c.cfg.ChunkShape)
		if err := ndarray.CopyRegion(sub, grid.WholeSpans(sub.Shape), a, region); err != nil {
			return err
		}
		enc, err := c.encodeInner(ctx, p, sub, in.FillValue)
		chunks[i] = enc
		return err
	})
	if err != nil {
		return nil, err
	}
	return p.format.Assemble(ctx, chunks, p.order)
}

// encodeInner encodes one inner chunk, or returns nil when it equals the
// fill value (it is then not stored).
func (c *Codec) encodeInner(ctx context.Context, p *plan, sub *ndarray.Array, fill []byte) ([]byte, error) {
	if sub.IsFilled(fill) {
		return nil, nil
	}
	b, err := p.inner.Encode(ctx, sub)
	if err != nil {
		return nil, fmt.Errorf("%s: inner chunk: %w", Name, err)
	}
	if b == nil {
		b = []byte{} // stored, though empty
	}
	return b, nil
}
