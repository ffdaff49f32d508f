package layout

import (
	"sync"

	"github.com/zarrgw/zarrgw/core/checked"
	"github.com/zarrgw/zarrgw/core/grid"
	"github.com/zarrgw/zarrgw/core/meta"
	"github.com/zarrgw/zarrgw/core/ndarray"
)

// grids keeps the chunk grid of each array's metadata (by its address:
// metadata is not changed once made), so that a rectilinear grid's edges
// are expanded once per array, not once per chunk.
var grids sync.Map // *meta.ArrayMeta -> grid.Grid

// GridOf is the chunk grid of an array's metadata (checked before: its
// edges within the limits). Metadata whose grid cannot be made gets the
// regular grid of its longest chunks, a bound.
func GridOf(m *meta.ArrayMeta) grid.Grid {
	if g, ok := grids.Load(m); ok {
		return g.(grid.Grid)
	}
	g, err := grid.ForArray(m, 0)
	if err != nil {
		g, _ = grid.New(m.Shape, m.ChunkShape)
	}
	grids.Store(m, g)
	return g
}

// GridCounts is the number of chunks along each dimension of the array.
func GridCounts(m *meta.ArrayMeta) []int {
	if !m.Rectilinear() {
		return Counts(m.Shape, m.ChunkShape)
	}
	return GridOf(m).GridShape()
}

// Counts is the number of chunks along each dimension of a regular grid.
func Counts(shape, chunks []int) []int {
	out := make([]int, len(shape))
	for i := range shape {
		if chunks[i] > 0 {
			out[i] = checked.CeilDiv(shape[i], chunks[i])
		}
	}
	return out
}

// Product is the chunks of a grid of counts. The new layout's metadata
// was checked when its chain was probed (array.Probe), so its count fits;
// one that did not would be math.MaxInt64, never a wrapped small count.
func Product(counts []int) int64 {
	var c checked.Calc
	return c.Product(counts)
}

// Coords turns a linear index in C order into grid coordinates.
func Coords(idx int64, counts []int) []int {
	coords := make([]int, len(counts))
	for d := len(counts) - 1; d >= 0; d-- {
		c := int64(counts[d])
		coords[d] = int(idx % c)
		idx /= c
	}
	return coords
}

// Next advances coords in C order within counts.
func Next(coords, counts []int) {
	for d := len(coords) - 1; d >= 0; d-- {
		if coords[d]++; coords[d] < counts[d] {
			return
		}
		coords[d] = 0
	}
}

// ChunkBox is the selection of the chunk at coords, cut at the array's
// end.
func ChunkBox(m *meta.ArrayMeta, coords []int) grid.Selection {
	g := GridOf(m)
	return grid.Box(g.ChunkOrigin(coords), g.InBounds(coords))
}

// WeighOverlap adds to each chunk of out's grid that the source chunk at
// coords overlaps its share of size, by the volume of the overlap. The
// coordinates come from a stored key: one whose origin is beyond an int
// is outside the array, never wrapped into it.
func WeighOverlap(weights map[int64]int64, coords []int, size int64, src, out *meta.ArrayMeta, counts []int) {
	rank := len(coords)
	start, end := make([]int, rank), make([]int, rank)
	lo, hi := make([]int, rank), make([]int, rank)
	volume := int64(1)
	sg, og := GridOf(src), GridOf(out)
	for i, c := range coords {
		s, n, ok := sg.Axis(i).Bounds(c)
		if ok {
			start[i], end[i] = s, s+min(n, src.Shape[i]-s)
		}
		if !ok || start[i] >= end[i] {
			return // a chunk outside the array (left by a shrink, or a stray key)
		}
		lo[i], hi[i] = og.Axis(i).Chunk(start[i]), og.Axis(i).Chunk(end[i]-1)
		volume *= int64(end[i] - start[i])
	}
	idx := append([]int(nil), lo...)
	for {
		var linear int64
		overlap := int64(1)
		for i := range idx {
			linear = linear*int64(counts[i]) + int64(idx[i])
			x := og.Axis(i)
			from, to := max(start[i], x.Start(idx[i])), min(end[i], x.Start(idx[i])+x.Len(idx[i]))
			overlap *= int64(to - from)
		}
		weights[linear] += checked.MulDiv(max(size, 0), overlap, volume)
		d := rank - 1
		for ; d >= 0 && idx[d] == hi[d]; d-- {
			idx[d] = lo[d]
		}
		if d < 0 {
			return
		}
		idx[d]++
	}
}

// Pieces cuts box into selections of at most maxBytes (an element taking
// elem), box itself when it fits: ranges along the outermost dimension
// along which one index fits, each index of the dimensions before it
// alone. Along that dimension a piece holds whole inner chunks (inner,
// when the array is sharded) where it can, so that none is encoded twice.
func Pieces(box grid.Selection, inner []int, elem, maxBytes int64) []grid.Selection {
	counts := box.Counts()
	total := int64(ndarray.NumElements(counts)) * elem
	if total <= maxBytes || len(box) == 0 {
		return []grid.Selection{box}
	}
	level, row := 0, total/int64(counts[0]) // row: the bytes of one index along level
	for row > maxBytes && level < len(box)-1 {
		level++
		row /= int64(counts[level])
	}
	rows := int(max(maxBytes/max(row, 1), 1))
	if inner != nil && rows >= inner[level] {
		rows -= rows % inner[level] // box starts at a chunk's start: a multiple of inner
	}
	var out []grid.Selection
	idx := make([]int, level) // the index of each dimension before level
	for {
		for lo := 0; lo < counts[level]; lo += rows {
			sub := make(grid.Selection, len(box))
			copy(sub, box)
			for d, i := range idx {
				sub[d] = grid.Dim{Start: box[d].Start + i, Step: 1, Count: 1}
			}
			sub[level] = grid.Dim{Start: box[level].Start + lo, Step: 1, Count: min(rows, counts[level]-lo)}
			out = append(out, sub)
		}
		d := level - 1
		for ; d >= 0; d-- {
			if idx[d]++; idx[d] < counts[d] {
				break
			}
			idx[d] = 0
		}
		if d < 0 {
			return out
		}
	}
}
