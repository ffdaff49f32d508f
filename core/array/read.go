package array

import (
	"context"
	"errors"
	"fmt"

	"github.com/zarrgw/zarrgw/core/grid"
	"github.com/zarrgw/zarrgw/core/ndarray"
	"github.com/zarrgw/zarrgw/core/store"
)

// Read returns the selected elements; the result's shape is sel.Shape().
func (a *Array) Read(ctx context.Context, sel grid.Selection) (*ndarray.Array, error) {
	if err := sel.Check(a.meta.Shape); err != nil {
		return nil, fmt.Errorf("array %s: %w", a.Name(), err)
	}
	out := a.newOutput(sel)
	projections := a.grid.Project(sel)
	err := forEach(ctx, len(projections), a.opts.concurrency(), func(ctx context.Context, i int) error {
		p := projections[i]
		chunk, err := a.ReadChunk(ctx, p.Chunk)
		if err != nil {
			return err
		}
		if chunk == nil {
			ndarray.FillRegion(out, p.Out, a.fill())
			return nil
		}
		return ndarray.CopyRegion(out, p.Out, chunk, p.InChunk)
	})
	if err != nil {
		return nil, err
	}
	out.Shape = sel.Shape()
	return out, nil
}

// ReadAll returns the whole array.
func (a *Array) ReadAll(ctx context.Context) (*ndarray.Array, error) {
	return a.Read(ctx, grid.All(a.meta.Shape))
}

// ReadChunk returns the decoded chunk at coords (full chunk shape), or nil
// when the chunk is not stored (it then reads as the fill value). Any
// failure other than a missing key is an error naming the array and key.
func (a *Array) ReadChunk(ctx context.Context, coords []int) (*ndarray.Array, error) {
	key := a.ChunkKey(coords)
	v, err := a.data.Get(ctx, key, store.ByteRange{})
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("array %s: read chunk %s: %w", a.Name(), key, err)
	}
	chunk, err := a.pipe.Decode(ctx, v.Data)
	if err != nil {
		return nil, fmt.Errorf("array %s: chunk %s: %w", a.Name(), key, err)
	}
	return chunk, nil
}
