package grid

import (
	"iter"
	"slices"
)

// Span is a strided run along one dimension: Count elements from Start,
// Step apart.
type Span struct {
	Start, Step, Count int
}

// Projection is the part of a selection that falls in one chunk.
type Projection struct {
	// Chunk is the chunk's grid coordinates.
	Chunk []int
	// InChunk selects the elements inside the chunk (chunk-local indexes).
	InChunk []Span
	// Out places them in the selection's output (full rank; dropped
	// dimensions have Count 1).
	Out []Span
}

// Full reports whether the projection covers every in-bounds element of
// its chunk, so a write needs no read of the old chunk.
func (p Projection) Full(g Grid) bool {
	inb := g.InBounds(p.Chunk)
	for i, s := range p.InChunk {
		if s.Start != 0 || s.Count != inb[i] || (s.Count > 1 && s.Step != 1) {
			return false
		}
	}
	return true
}

// dimPart is the projection of one dimension's selection onto one chunk.
type dimPart struct {
	chunk   int
	inChunk Span
	out     Span
}

// Project splits a selection (already checked against g.Shape) into
// per-chunk projections, in C order of chunks.
func (g Grid) Project(sel Selection) []Projection {
	parts := make([][]dimPart, len(sel))
	for i, d := range sel {
		parts[i] = slices.Collect(projectDim(d, g.axes[i]))
		if len(parts[i]) == 0 {
			return nil
		}
	}
	counts := make([]int, len(parts))
	for i := range parts {
		counts[i] = len(parts[i])
	}
	var out []Projection
	forEachIndex(counts, func(idx []int) bool {
		p := Projection{
			Chunk:   make([]int, len(idx)),
			InChunk: make([]Span, len(idx)),
			Out:     make([]Span, len(idx)),
		}
		for d, k := range idx {
			part := parts[d][k]
			p.Chunk[d], p.InChunk[d], p.Out[d] = part.chunk, part.inChunk, part.out
		}
		out = append(out, p)
		return true
	})
	return out
}

// ChunkCounts yields how many selected indexes of d (checked against its
// array) fall in each chunk of the axis that d crosses, in order. It runs
// lazily: a dimension may cross more chunks than fit in memory.
func ChunkCounts(d Dim, x Axis) iter.Seq[int] {
	return func(yield func(int) bool) {
		for part := range projectDim(d, x) {
			if !yield(part.inChunk.Count) {
				return
			}
		}
	}
}

// projectDim splits one dimension's strided selection by chunk. Every
// index it computes lies within the selection, so none can overflow.
func projectDim(d Dim, x Axis) iter.Seq[dimPart] {
	return func(yield func(dimPart) bool) {
		idx, out, left := d.Start, 0, d.Count
		for left > 0 {
			c := x.Chunk(idx)
			inChunk := idx - x.Start(c)
			// the selected indexes idx, idx+step, ... left in this chunk
			n := min((x.Len(c)-1-inChunk)/d.Step+1, left)
			part := dimPart{
				chunk:   c,
				inChunk: Span{Start: inChunk, Step: d.Step, Count: n},
				out:     Span{Start: out, Step: 1, Count: n},
			}
			if !yield(part) {
				return
			}
			out, left = out+n, left-n
			if left > 0 {
				idx += n * d.Step // the next selected index: within the selection
			}
		}
	}
}

// WholeSpans selects all of an array of the given shape.
func WholeSpans(shape []int) []Span {
	s := make([]Span, len(shape))
	for i, n := range shape {
		s[i] = Span{Start: 0, Step: 1, Count: n}
	}
	return s
}
