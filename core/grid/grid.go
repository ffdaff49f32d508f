package grid

import (
	"fmt"

	"github.com/zarrgw/zarrgw/core/checked"
)

// Grid is a regular chunk grid over an array shape.
type Grid struct {
	Shape      []int
	ChunkShape []int
}

// New checks ranks and sizes and returns the grid. The shape's element
// count must fit in an int: every count of chunks or elements of the grid
// is then at most that.
func New(shape, chunkShape []int) (Grid, error) {
	if len(shape) != len(chunkShape) {
		return Grid{}, fmt.Errorf("shape %v and chunk shape %v differ in rank", shape, chunkShape)
	}
	for i := range shape {
		if shape[i] < 0 {
			return Grid{}, fmt.Errorf("shape %v: negative extent", shape)
		}
		if chunkShape[i] <= 0 {
			return Grid{}, fmt.Errorf("chunk shape %v: extents must be positive", chunkShape)
		}
	}
	if _, ok := checked.Product(shape); !ok {
		return Grid{}, fmt.Errorf("shape %v: more elements than a 64-bit count holds", shape)
	}
	return Grid{Shape: shape, ChunkShape: chunkShape}, nil
}

// GridShape is the number of chunks along each dimension.
func (g Grid) GridShape() []int {
	out := make([]int, len(g.Shape))
	for i := range g.Shape {
		out[i] = checked.CeilDiv(g.Shape[i], g.ChunkShape[i])
	}
	return out
}

// NumChunks is the number of chunks in the grid.
func (g Grid) NumChunks() int {
	n := 1
	for _, s := range g.GridShape() {
		n *= s
	}
	return n
}

// ChunkOrigin is the array index of the first element of chunk coords.
func (g Grid) ChunkOrigin(coords []int) []int {
	out := make([]int, len(coords))
	for i, c := range coords {
		out[i] = c * g.ChunkShape[i]
	}
	return out
}

// InBounds is the part of chunk coords that lies inside the array: its
// extent per dimension (the chunk shape, or less for edge chunks).
func (g Grid) InBounds(coords []int) []int {
	out := make([]int, len(coords))
	for i, c := range coords {
		out[i] = min(g.ChunkShape[i], g.Shape[i]-c*g.ChunkShape[i])
	}
	return out
}

// Chunks yields the coordinates of every chunk in C order. The slice is
// reused between iterations.
func (g Grid) Chunks(yield func([]int) bool) {
	forEachIndex(g.GridShape(), yield)
}

func forEachIndex(shape []int, yield func([]int) bool) {
	for _, s := range shape {
		if s == 0 {
			return
		}
	}
	idx := make([]int, len(shape))
	for {
		if !yield(idx) {
			return
		}
		d := len(shape) - 1
		for ; d >= 0; d-- {
			idx[d]++
			if idx[d] < shape[d] {
				break
			}
			idx[d] = 0
		}
		if d < 0 {
			return
		}
	}
}
