package array

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/zarrgw/zarrgw/core/codec"
)

// maxShapePipes bounds the pipelines an array keeps for the chunk shapes
// of a rectilinear grid; past it, one is built for each chunk.
const maxShapePipes = 256

// shapePipes keeps the codec pipelines of the chunk shapes a rectilinear
// grid has besides its longest (ChunkShape).
type shapePipes struct {
	mu sync.Mutex
	m  map[string]*codec.Pipeline
}

// pipeOf is the codec pipeline of a chunk of the given shape: the array's
// own for ChunkShape (every chunk of a regular grid), else one of the
// same resolved codecs for that shape: the codecs see each chunk of a
// rectilinear grid at its own shape.
func (a *Array) pipeOf(ctx context.Context, shape []int) (*codec.Pipeline, error) {
	if slices.Equal(shape, a.meta.ChunkShape) {
		return a.pipe, nil
	}
	key := fmt.Sprint(shape)
	a.pipes.mu.Lock()
	p := a.pipes.m[key]
	a.pipes.mu.Unlock()
	if p != nil {
		return p, nil
	}
	spec := a.pipe.Spec()
	spec.Shape = slices.Clone(shape)
	p, err := codec.FromCodecs(ctx, a.pipe.Codecs(), spec, a.pipe.MaxChunkBytes())
	if err != nil {
		return nil, fmt.Errorf("array %s: chunks of shape %v: %w", a.Name(), shape, err)
	}
	a.pipes.mu.Lock()
	defer a.pipes.mu.Unlock()
	if a.pipes.m == nil {
		a.pipes.m = map[string]*codec.Pipeline{}
	}
	if len(a.pipes.m) < maxShapePipes {
		a.pipes.m[key] = p
	}
	return p, nil
}

// pipeAt is the codec pipeline of the chunk at coords.
func (a *Array) pipeAt(ctx context.Context, coords []int) (*codec.Pipeline, error) {
	return a.pipeOf(ctx, a.grid.ChunkShapeAt(coords))
}

// ChunkSpec is the codec spec of the chunk at coords: its own shape on a
// rectilinear grid.
func (a *Array) ChunkSpec(ctx context.Context, coords []int) (codec.Spec, error) {
	p, err := a.pipeAt(ctx, coords)
	if err != nil {
		return codec.Spec{}, err
	}
	return p.Spec(), nil
}
