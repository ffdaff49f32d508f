package grid

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
		parts[i] = projectDim(d, g.ChunkShape[i])
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

// projectDim splits one dimension's strided selection by chunk.
func projectDim(d Dim, chunk int) []dimPart {
	if d.Count == 0 {
		return nil
	}
	var parts []dimPart
	outPos := 0
	idx := d.Start
	last := d.Start + (d.Count-1)*d.Step
	for idx <= last {
		c := idx / chunk
		chunkEnd := (c + 1) * chunk // exclusive
		// number of selected indexes idx, idx+step, ... below chunkEnd and <= last
		n := (min(chunkEnd-1, last)-idx)/d.Step + 1
		parts = append(parts, dimPart{
			chunk:   c,
			inChunk: Span{Start: idx - c*chunk, Step: d.Step, Count: n},
			out:     Span{Start: outPos, Step: 1, Count: n},
		})
		outPos += n
		idx += n * d.Step
	}
	return parts
}

// WholeSpans selects all of an array of the given shape.
func WholeSpans(shape []int) []Span {
	s := make([]Span, len(shape))
	for i, n := range shape {
		s[i] = Span{Start: 0, Step: 1, Count: n}
	}
	return s
}
