package array

import (
	"context"
	"fmt"
	"slices"

	"github.com/zarrgw/zarrgw/core/meta"

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
	m := *a.meta
	m.Shape = append([]int(nil), shape...)
	m.ChunkEdges = meta.ResizeEdges(a.meta.ChunkEdges, a.meta.Shape, shape)
	m.ChunkShape = a.meta.ChunkShape
	if m.Rectilinear() {
		m.ChunkShape = meta.LongestChunks(m.ChunkEdges)
	}
	if err := m.Check(a.opts.Limits); err != nil {
		return fmt.Errorf("array %s: resize to %v: %w", a.Name(), shape, err)
	}
	newGrid, err := grid.ForArray(&m, a.opts.Limits.ChunkEdgesLimit())
	if err != nil {
		return fmt.Errorf("array %s: %w", a.Name(), err)
	}
	newPipe := a.pipe
	if !slices.Equal(m.ChunkShape, a.meta.ChunkShape) {
		// a new longest chunk: the pipeline of ChunkShape chunks changes
		if newPipe, err = a.pipeOf(ctx, m.ChunkShape); err != nil {
			return err
		}
	}
	oldGrid := a.grid
	if err := a.dropOutside(ctx, oldGrid, newGrid); err != nil {
		return err
	}
	old, oldG, oldPipe := a.meta, a.grid, a.pipe
	a.meta, a.grid, a.pipe = &m, newGrid, newPipe
	if err := a.writeMeta(ctx); err != nil {
		a.meta, a.grid, a.pipe = old, oldG, oldPipe
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
			} else if x := old.Axis(d); x.Start(c[d])+x.Len(c[d]) > next.Shape[d] && next.Shape[d] < old.Shape[d] {
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
		if keep >= chunk.Shape[d] {
			continue
		}
		sel := grid.WholeSpans(chunk.Shape)
		sel[d] = grid.Span{Start: keep, Step: 1, Count: chunk.Shape[d] - keep}
		ndarray.FillRegion(chunk, sel, a.fill())
	}
	key := a.ChunkKey(c)
	if !a.opts.WriteEmptyChunks && chunk.IsFilled(a.fill()) {
		return a.data.Erase(ctx, key)
	}
	return a.storeChunk(ctx, key, chunk, store.Condition{})
}
