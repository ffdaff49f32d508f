// Package grid holds chunk grids (regular, and rectilinear: chunk edges
// listed per dimension), chunk key encodings, and selections (per
// dimension an index or a slice with a step) projected onto the chunks
// they touch.
package grid

import (
	"fmt"

	"github.com/zarrgw/zarrgw/core/checked"
	"github.com/zarrgw/zarrgw/core/meta"
)

// Grid is a chunk grid over an array shape: one Axis per dimension.
type Grid struct {
	Shape []int
	// ChunkShape is a regular grid's chunk shape; for a rectilinear one,
	// its longest chunk along each dimension (a bound on every chunk).
	ChunkShape []int
	axes       []Axis
}

// New checks ranks and sizes and returns the regular grid. The shape's
// element count must fit in an int: every count of chunks or elements of
// the grid is then at most that.
func New(shape, chunkShape []int) (Grid, error) {
	if len(shape) != len(chunkShape) {
		return Grid{}, fmt.Errorf("shape %v and chunk shape %v differ in rank", shape, chunkShape)
	}
	for i := range chunkShape {
		if chunkShape[i] <= 0 {
			return Grid{}, fmt.Errorf("chunk shape %v: extents must be positive", chunkShape)
		}
	}
	axes := make([]Axis, len(shape))
	for i, n := range chunkShape {
		axes[i] = RegularAxis(n)
	}
	return withAxes(shape, axes)
}

// NewRectilinear is the grid of the given chunk edge lengths per
// dimension; they must reach the end of each dimension.
func NewRectilinear(shape []int, edges [][]int) (Grid, error) {
	if len(shape) != len(edges) {
		return Grid{}, fmt.Errorf("shape %v and %d dimensions of chunk edges differ in rank", shape, len(edges))
	}
	axes := make([]Axis, len(shape))
	for d, e := range edges {
		var err error
		if axes[d], err = RectilinearAxis(e); err != nil {
			return Grid{}, fmt.Errorf("dimension %d: %w", d, err)
		}
		if end := axes[d].ends[len(e)-1]; end < shape[d] {
			return Grid{}, fmt.Errorf("dimension %d: chunk edges reach %d, short of the shape's %d", d, end, shape[d])
		}
	}
	return withAxes(shape, axes)
}

func withAxes(shape []int, axes []Axis) (Grid, error) {
	for i := range shape {
		if shape[i] < 0 {
			return Grid{}, fmt.Errorf("shape %v: negative extent", shape)
		}
	}
	if _, ok := checked.Product(shape); !ok {
		return Grid{}, fmt.Errorf("shape %v: more elements than a 64-bit count holds", shape)
	}
	longest := make([]int, len(axes))
	for d, x := range axes {
		longest[d] = x.Longest()
	}
	return Grid{Shape: shape, ChunkShape: longest, axes: axes}, nil
}

// ForArray is the chunk grid of an array's metadata: a rectilinear grid's
// edges are expanded, at most maxEdges per dimension (0: meta's default).
func ForArray(m *meta.ArrayMeta, maxEdges int) (Grid, error) {
	if !m.Rectilinear() {
		return New(m.Shape, m.ChunkShape)
	}
	if maxEdges <= 0 {
		maxEdges = meta.DefaultMaxChunkEdges
	}
	if len(m.ChunkEdges) != len(m.Shape) {
		return Grid{}, fmt.Errorf("chunk_grid.chunk_shapes has %d dimensions, shape has %d", len(m.ChunkEdges), len(m.Shape))
	}
	edges := make([][]int, len(m.ChunkEdges))
	for d, e := range m.ChunkEdges {
		var err error
		if edges[d], err = e.Expand(m.Shape[d], maxEdges); err != nil {
			return Grid{}, fmt.Errorf("chunk_grid.chunk_shapes[%d]: %w", d, err)
		}
	}
	return NewRectilinear(m.Shape, edges)
}

// Axis is the grid's dimension d.
func (g Grid) Axis(d int) Axis { return g.axes[d] }

// Regular reports whether every chunk has the shape ChunkShape.
func (g Grid) Regular() bool {
	for _, x := range g.axes {
		if _, ok := x.Regular(); !ok {
			return false
		}
	}
	return true
}

// GridShape is the number of chunks along each dimension.
func (g Grid) GridShape() []int {
	out := make([]int, len(g.Shape))
	for i := range g.Shape {
		out[i] = g.axes[i].Count(g.Shape[i])
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
		out[i] = g.axes[i].Start(c)
	}
	return out
}

// ChunkShapeAt is the shape of the chunk at coords as the codecs see it:
// its full edges, the array's end ignored.
func (g Grid) ChunkShapeAt(coords []int) []int {
	out := make([]int, len(coords))
	for i, c := range coords {
		out[i] = g.axes[i].Len(c)
	}
	return out
}

// InBounds is the part of chunk coords that lies inside the array: its
// extent per dimension (the chunk's edges, or less for edge chunks).
func (g Grid) InBounds(coords []int) []int {
	out := make([]int, len(coords))
	for i, c := range coords {
		out[i] = min(g.axes[i].Len(c), g.Shape[i]-g.axes[i].Start(c))
	}
	return out
}

// ChunksCrossed counts, per dimension, the chunks holding elements sel
// selects.
func (g Grid) ChunksCrossed(sel Selection) []int {
	out := make([]int, len(sel))
	for i, d := range sel {
		out[i] = g.axes[i].Crossed(d)
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
