package array

import (
	"context"
	"fmt"

	"github.com/zarrgw/zarrgw/core/grid"
	"github.com/zarrgw/zarrgw/core/ndarray"
	"github.com/zarrgw/zarrgw/core/store"
)

// Resize changes the array's shape. Growing only rewrites metadata.
// Shrinking deletes the chunks wholly outside the new shape and resets the
// cut-off part of edge chunks to the fill value, so growing again later
// shows fill values, not stale data.
func (a *Array) Resize(ctx context.Context, shape []int) error {
	if len(shape) != len(a.meta.Shape) {
		return fmt.Errorf("array %s: resize to %v changes rank %d", a.Name(), shape, len(a.meta.Shape))
	}
	newGrid, err := grid.New(shape, a.meta.ChunkShape)
	if err != nil {
		return fmt.Errorf("array %s: %w", a.Name(), err)
	}
	oldGrid := a.grid
	if err := a.dropOutside(ctx, oldGrid, newGrid); err != nil {
		return err
	}
	m := *a.meta
	m.Shape = append([]int(nil), shape...)
	old, oldG := a.meta, a.grid
	a.meta, a.grid = &m, newGrid
	if err := a.writeMeta(ctx); err != nil {
		a.meta, a.grid = old, oldG
		return fmt.Errorf("array %s: %w", a.Name(), err)
	}
	return nil
}

// dropOutside erases chunks of old that lie wholly outside next and clears
// the part of straddling chunks beyond next's edge.
func (a *Array) dropOutside(ctx context.Context, old, next grid.Grid) error {
	newGridShape := next.GridShape()
	var erase []string
	var straddle [][]int
	old.Chunks(func(c []int) bool {
		inside, cut := true, false
		for d := range c {
			if c[d] >= newGridShape[d] {
				inside = false
			} else if (c[d]+1)*old.ChunkShape[d] > next.Shape[d] && next.Shape[d] < old.Shape[d] {
				cut = true
			}
		}
		switch {
		case !inside:
			erase = append(erase, a.ChunkKey(c))
		case cut:
			straddle = append(straddle, append([]int(nil), c...))
		}
		return true
	})
	// One batch: a store with a batch delete (S3's DeleteObjects, 1000
	// keys a call) sends a few requests, not one per chunk.
	if err := a.data.EraseMany(ctx, erase); err != nil {
		return fmt.Errorf("array %s: erase chunks outside the new shape: %w", a.Name(), err)
	}
	return forEach(ctx, len(straddle), a.opts.concurrency(), func(ctx context.Context, i int) error {
		return a.clearBeyond(ctx, straddle[i], next)
	})
}

// clearBeyond sets the elements of chunk c outside next.Shape to fill.
func (a *Array) clearBeyond(ctx context.Context, c []int, next grid.Grid) error {
	chunk, err := a.ReadChunk(ctx, c)
	if err != nil || chunk == nil {
		return err
	}
	origin := a.grid.ChunkOrigin(c)
	// Clear each dimension's overhang separately; overlaps are harmless.
	for d := range c {
		keep := next.Shape[d] - origin[d]
		if keep >= a.meta.ChunkShape[d] {
			continue
		}
		sel := make([]grid.Span, len(c))
		for k := range sel {
			sel[k] = grid.Span{Start: 0, Step: 1, Count: a.meta.ChunkShape[k]}
		}
		sel[d] = grid.Span{Start: keep, Step: 1, Count: a.meta.ChunkShape[d] - keep}
		ndarray.FillRegion(chunk, sel, a.fill())
	}
	key := a.ChunkKey(c)
	if !a.opts.WriteEmptyChunks && chunk.IsFilled(a.fill()) {
		return a.data.Erase(ctx, key)
	}
	return a.storeChunk(ctx, key, chunk, store.Condition{})
}
