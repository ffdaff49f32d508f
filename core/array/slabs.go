package array

import "github.com/zarrgw/zarrgw/core/grid"

// A slab is a piece of a selection whose elements are contiguous in the
// selection's C-order output: the output indexes of the dimensions before
// its level are fixed, its level takes a range of indexes, and every later
// dimension is whole. Slabs follow chunk boundaries along their level, so
// each chunk is read (or written) by one slab, unless one chunk row of the
// output alone is larger than a slab: then its rows are split evenly.

// slabPlan cuts a selection into slabs of at most maxBytes of output.
type slabPlan struct {
	sel    grid.Selection
	counts []int
	level  int      // the dimension slabs take ranges of
	ranges [][2]int // the output ranges [lo, hi) along level, in order
	// maxElems is the element count of the largest slab.
	maxElems int
}

// planSlabs picks the outermost level at which one output index fits in
// maxBytes (an element costing elemBytes) and groups the chunk spans
// along it into slabs. innerShape, when not nil, is the shape of the
// inner chunks of sharded chunks: a shard span too large for one slab is
// cut at inner chunk boundaries, so that no inner chunk is decoded twice.
func planSlabs(sel grid.Selection, chunkShape, innerShape []int, elemBytes, maxBytes int64) slabPlan {
	p := slabPlan{sel: sel, counts: sel.Counts()}
	total := 1
	for _, c := range p.counts {
		total *= c
	}
	if len(sel) == 0 || total == 0 {
		p.maxElems = total
		if total > 0 {
			p.ranges = [][2]int{{0, 1}}
		}
		return p
	}
	inner := total // elements of one output index at level
	for p.level = 0; ; p.level++ {
		inner /= p.counts[p.level]
		if int64(inner)*elemBytes <= maxBytes || p.level == len(sel)-1 {
			break
		}
	}
	rows := int(max(maxBytes/(int64(inner)*elemBytes), 1))
	spans := chunkSpans(sel[p.level], chunkShape[p.level])
	var innerSpans []int
	if innerShape != nil {
		innerSpans = chunkSpans(sel[p.level], innerShape[p.level])
	}
	p.ranges = groupSpans(spans, innerSpans, rows)
	for _, r := range p.ranges {
		p.maxElems = max(p.maxElems, (r[1]-r[0])*inner)
	}
	return p
}

// chunkSpans returns how many selected indexes of d fall in each chunk
// that d crosses, in order.
func chunkSpans(d grid.Dim, chunk int) []int {
	var out []int
	idx, last := d.Start, d.Start+(d.Count-1)*d.Step
	for d.Count > 0 && idx <= last {
		end := (idx/chunk + 1) * chunk
		n := (min(end-1, last)-idx)/d.Step + 1
		out = append(out, n)
		idx += n * d.Step
	}
	return out
}

// groupSpans groups consecutive spans into ranges [lo, hi) of at most rows
// indexes: whole spans while they fit, and a span larger than rows cut
// into pieces: at the inner spans it is made of when innerSpans is given
// (they nest in the spans), else evenly.
func groupSpans(spans, innerSpans []int, rows int) [][2]int {
	var out [][2]int
	lo, hi := 0, 0
	next := 0 // the first inner span of the current span
	for _, n := range spans {
		var inner []int
		if innerSpans != nil {
			for k := 0; k < n; next++ {
				inner = append(inner, innerSpans[next])
				k += innerSpans[next]
			}
		}
		if hi > lo && hi-lo+n > rows {
			out = append(out, [2]int{lo, hi})
			lo = hi
		}
		if n <= rows {
			hi += n
			continue
		}
		for _, r := range cut(n, inner, rows) {
			out = append(out, [2]int{lo, lo + r})
			lo += r
		}
		hi = lo
	}
	if hi > lo {
		out = append(out, [2]int{lo, hi})
	}
	return out
}

// cut splits a span of n indexes into pieces of at most rows: groups of
// whole inner spans when there are any (an inner span larger than rows
// still cut evenly), else even pieces.
func cut(n int, inner []int, rows int) []int {
	if len(inner) == 0 {
		inner = []int{n}
	}
	var out []int
	acc := 0
	for _, m := range inner {
		if acc > 0 && acc+m > rows {
			out = append(out, acc)
			acc = 0
		}
		if m <= rows {
			acc += m
			continue
		}
		pieces := (m + rows - 1) / rows
		done := 0
		for i := 1; i <= pieces; i++ {
			end := m * i / pieces
			out = append(out, end-done)
			done = end
		}
	}
	if acc > 0 {
		out = append(out, acc)
	}
	return out
}

// each calls fn with the selection of every slab, in output order, until
// fn returns false.
func (p slabPlan) each(fn func(sub grid.Selection) bool) {
	if len(p.ranges) == 0 {
		return
	}
	if len(p.sel) == 0 {
		fn(p.sel)
		return
	}
	idx := make([]int, p.level) // output indexes of the fixed dimensions
	for {
		for _, r := range p.ranges {
			if !fn(p.slab(idx, r)) {
				return
			}
		}
		if !next(idx, p.counts[:p.level]) {
			return
		}
	}
}

// slab is the selection of one slab: fixed indexes before level, range r
// along it.
func (p slabPlan) slab(idx []int, r [2]int) grid.Selection {
	sub := make(grid.Selection, len(p.sel))
	copy(sub, p.sel)
	for d, i := range idx {
		sub[d] = grid.Dim{Start: p.sel[d].Start + i*p.sel[d].Step, Step: 1, Count: 1, Drop: p.sel[d].Drop}
	}
	d := p.sel[p.level]
	sub[p.level] = grid.Dim{Start: d.Start + r[0]*d.Step, Step: d.Step, Count: r[1] - r[0], Drop: d.Drop}
	return sub
}

// next advances idx in C order within counts and reports false after the
// last index.
func next(idx, counts []int) bool {
	for d := len(idx) - 1; d >= 0; d-- {
		if idx[d]++; idx[d] < counts[d] {
			return true
		}
		idx[d] = 0
	}
	return false
}
