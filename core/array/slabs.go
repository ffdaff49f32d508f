package array

import (
	"fmt"
	"iter"

	"github.com/zarrgw/zarrgw/core/checked"
	"github.com/zarrgw/zarrgw/core/grid"
)

// A slab is a piece of a selection whose elements are contiguous in the
// selection's C-order output: the output indexes of the dimensions before
// its level are fixed, its level takes a range of indexes, and every later
// dimension is whole. Slabs follow chunk boundaries along their level, so
// each chunk is read (or written) by one slab, unless one chunk row of the
// output alone is larger than a slab: then its rows are split evenly.
//
// A plan is walked lazily, never listed: a selection may cross more
// chunks along its level than there is memory for their list.

// slabPlan cuts a selection into slabs of at most maxBytes of output.
type slabPlan struct {
	sel    grid.Selection
	counts []int
	level  int       // the dimension slabs take ranges of
	rows   int       // the most output indexes along level in one slab
	chunk  grid.Axis // the chunks along level
	inner  int       // the inner chunk extent along level (0: not sharded)
	// maxElems is the element count of the largest slab (0: no slab).
	maxElems int
}

// exactSpans bounds the chunk spans a plan walks to size its slab
// buffers exactly; past it, they are sized for the most a range may hold.
const exactSpans = 1 << 16

// planSlabs picks the outermost level at which one output index fits in
// maxBytes (an element costing elemBytes) and groups the chunk spans
// along it (axis(level): the grid's chunks there) into slabs. innerShape, when not nil, is the shape of the
// inner chunks of sharded chunks: a shard span too large for one slab is
// cut at inner chunk boundaries, so that no inner chunk is decoded twice.
func planSlabs(sel grid.Selection, axis func(d int) grid.Axis, innerShape []int, elemBytes, maxBytes int64) (slabPlan, error) {
	p := slabPlan{sel: sel, counts: sel.Counts()}
	total, ok := checked.Product(p.counts)
	if !ok {
		return p, fmt.Errorf("selection of %v elements: more than a 64-bit count holds", p.counts)
	}
	if len(sel) == 0 || total == 0 {
		p.maxElems = total
		return p, nil
	}
	inner := total // elements of one output index at level
	for p.level = 0; ; p.level++ {
		inner /= p.counts[p.level]
		if n, ok := checked.Mul(int64(inner), elemBytes); ok && n <= maxBytes || p.level == len(sel)-1 {
			break
		}
	}
	// inner*elemBytes fits: it is at most maxBytes, or one element
	p.rows = int(min(max(maxBytes/(int64(inner)*elemBytes), 1), int64(p.counts[p.level])))
	p.chunk = axis(p.level)
	if innerShape != nil {
		p.inner = innerShape[p.level]
	}
	if p.chunk.Crossed(sel[p.level]) > exactSpans {
		p.maxElems = p.rows * inner // every range holds at most rows
		return p, nil
	}
	for n := range p.rangeSizes() {
		p.maxElems = max(p.maxElems, n*inner)
	}
	return p, nil
}

// rangeSizes yields the lengths of the ranges along level that slabs
// take, in order.
func (p slabPlan) rangeSizes() iter.Seq[int] {
	d := p.sel[p.level]
	var innerOf func(lo, n int) iter.Seq[int]
	if p.inner > 0 {
		// the inner chunks of the span of n output indexes from lo:
		// inner chunk boundaries nest in the chunks' boundaries
		innerOf = func(lo, n int) iter.Seq[int] {
			return grid.ChunkCounts(grid.Dim{Start: d.Start + lo*d.Step, Step: d.Step, Count: n}, grid.RegularAxis(p.inner))
		}
	}
	return groupSpans(grid.ChunkCounts(d, p.chunk), innerOf, p.rows)
}

// groupSpans groups consecutive spans into ranges of at most rows indexes
// and yields their lengths: whole spans while they fit, and a span larger
// than rows cut into pieces: at the inner spans it is made of when innerOf
// is given (the inner spans of the span of n indexes from lo; an inner
// span larger than rows is still cut evenly), else evenly.
func groupSpans(spans iter.Seq[int], innerOf func(lo, n int) iter.Seq[int], rows int) iter.Seq[int] {
	evenly := func(_, n int) iter.Seq[int] { return cutEvenly(n, rows) }
	if innerOf == nil {
		return group(spans, rows, evenly)
	}
	return group(spans, rows, func(lo, n int) iter.Seq[int] {
		return group(innerOf(lo, n), rows, evenly)
	})
}

// group yields the lengths of runs of consecutive items of at most rows
// indexes: whole items while they fit, and an item larger than rows in
// the pieces split gives it (the item of n indexes from lo).
func group(items iter.Seq[int], rows int, split func(lo, n int) iter.Seq[int]) iter.Seq[int] {
	return func(yield func(int) bool) {
		acc, lo := 0, 0 // acc: whole items grouped so far, ending at lo
		for n := range items {
			if acc > 0 && acc+n > rows {
				if !yield(acc) {
					return
				}
				acc = 0
			}
			if n <= rows {
				acc, lo = acc+n, lo+n
				continue
			}
			for piece := range split(lo, n) {
				if !yield(piece) {
					return
				}
			}
			lo += n
		}
		if acc > 0 {
			yield(acc)
		}
	}
}

// cutEvenly cuts n indexes into the fewest pieces of at most rows, of
// lengths that differ by one at most.
func cutEvenly(n, rows int) iter.Seq[int] {
	return func(yield func(int) bool) {
		pieces := checked.CeilDiv(n, rows)
		done := 0
		for i := 1; i <= pieces; i++ {
			end := checked.MulDiv(n, i, pieces)
			if !yield(end - done) {
				return
			}
			done = end
		}
	}
}

// each calls fn with the selection of every slab, in output order, until
// fn returns false.
func (p slabPlan) each(fn func(sub grid.Selection) bool) {
	if p.maxElems == 0 {
		return
	}
	if len(p.sel) == 0 {
		fn(p.sel)
		return
	}
	idx := make([]int, p.level) // output indexes of the fixed dimensions
	for {
		lo := 0
		for n := range p.rangeSizes() {
			if !fn(p.slab(idx, lo, n)) {
				return
			}
			lo += n
		}
		if !next(idx, p.counts[:p.level]) {
			return
		}
	}
}

// slab is the selection of one slab: fixed indexes before level, n
// indexes from lo along it.
func (p slabPlan) slab(idx []int, lo, n int) grid.Selection {
	sub := make(grid.Selection, len(p.sel))
	copy(sub, p.sel)
	for d, i := range idx {
		sub[d] = grid.Dim{Start: p.sel[d].Start + i*p.sel[d].Step, Step: 1, Count: 1, Drop: p.sel[d].Drop}
	}
	d := p.sel[p.level]
	sub[p.level] = grid.Dim{Start: d.Start + lo*d.Step, Step: d.Step, Count: n, Drop: d.Drop}
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
