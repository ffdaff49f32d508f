package ndarray

import (
	"fmt"

	"github.com/zarrgw/zarrgw/core/grid"
)

// Span is a strided run along one dimension.
type Span = grid.Span

// CopyRegion copies the elements of src selected by srcSel into the
// elements of dst selected by dstSel. Both selections are full rank and
// select the same counts per dimension; types must match.
func CopyRegion(dst *Array, dstSel []Span, src *Array, srcSel []Span) error {
	if len(dstSel) != len(dst.Shape) || len(srcSel) != len(src.Shape) || len(dstSel) != len(srcSel) {
		return fmt.Errorf("copy region: rank mismatch (dst %v, src %v)", dst.Shape, src.Shape)
	}
	if !dst.DType.Equal(src.DType) {
		return fmt.Errorf("copy region: data type %s into %s", src.DType, dst.DType)
	}
	for i := range dstSel {
		if dstSel[i].Count != srcSel[i].Count {
			return fmt.Errorf("copy region: counts differ in dimension %d", i)
		}
		if dstSel[i].Count == 0 {
			return nil
		}
	}
	plan := newCopyPlan(dst.Shape, dstSel, src.Shape, srcSel)
	if dst.DType.Variable() {
		plan.run(func(d, s, n int) { copy(dst.Strings[d:d+n], src.Strings[s:s+n]) },
			func(d, s int) { dst.Strings[d] = src.Strings[s] })
		return nil
	}
	k := dst.DType.Size
	plan.run(func(d, s, n int) { copy(dst.Data[d*k:(d+n)*k], src.Data[s*k:(s+n)*k]) },
		func(d, s int) { copy(dst.Data[d*k:(d+1)*k], src.Data[s*k:(s+1)*k]) })
	return nil
}

// BlockRun returns the bytes of dst that its elements target take, when a
// block of shape block selected whole by in lands there as one contiguous
// run in the block's own C order: every dimension of target but the first
// spans dst's whole extent, with step 1. A chunk (or inner chunk) can then
// be decoded straight into dst.
func BlockRun(dst *Array, target []Span, block []int, in []Span) ([]byte, bool) {
	if dst.DType.Variable() || len(target) != len(dst.Shape) || len(in) != len(block) || len(block) != len(dst.Shape) {
		return nil, false
	}
	offset := 0
	for d, n := range block {
		b, t := in[d], target[d]
		if b.Start != 0 || b.Count != n || (n > 1 && b.Step != 1) || t.Count != n || (n > 1 && t.Step != 1) {
			return nil, false // not the whole block (edge chunks included)
		}
		if d > 0 && (t.Start != 0 || n != dst.Shape[d]) {
			return nil, false // the block's rows are not adjacent in dst
		}
		offset = offset*dst.Shape[d] + t.Start
	}
	size := dst.DType.Size
	start, end := offset*size, (offset+NumElements(block))*size
	if end > len(dst.Data) {
		return nil, false
	}
	return dst.Data[start:end], true
}

// FillRegion sets the elements of dst selected by sel to fill (one element
// in memory form; nil = zero).
func FillRegion(dst *Array, sel []Span, fill []byte) {
	for _, s := range sel {
		if s.Count == 0 {
			return
		}
	}
	// Walk dst against itself: only the destination offsets matter.
	plan := newCopyPlan(dst.Shape, sel, dst.Shape, sel)
	if dst.DType.Variable() {
		v := string(fill)
		plan.run(func(d, _, n int) {
			for i := d; i < d+n; i++ {
				dst.Strings[i] = v
			}
		}, func(d, _ int) { dst.Strings[d] = v })
		return
	}
	k := dst.DType.Size
	if fill == nil {
		fill = make([]byte, k)
	}
	plan.run(func(d, _, n int) { FillBytes(dst.Data[d*k:(d+n)*k], fill) },
		func(d, _ int) { copy(dst.Data[d*k:(d+1)*k], fill) })
}

// copyPlan walks two strided regions in lockstep, in element offsets.
type copyPlan struct {
	counts     []int
	dstStrides []int // element strides of each selected dimension in dst
	srcStrides []int
	dstBase    int
	srcBase    int
}

func newCopyPlan(dstShape []int, dstSel []Span, srcShape []int, srcSel []Span) copyPlan {
	dStr, sStr := cStrides(dstShape), cStrides(srcShape)
	p := copyPlan{}
	for i := range dstSel {
		p.dstBase += dstSel[i].Start * dStr[i]
		p.srcBase += srcSel[i].Start * sStr[i]
		p.counts = append(p.counts, dstSel[i].Count)
		p.dstStrides = append(p.dstStrides, dstSel[i].Step*dStr[i])
		p.srcStrides = append(p.srcStrides, srcSel[i].Step*sStr[i])
	}
	p.merge()
	return p
}

// merge folds a dimension into its outer neighbour when both regions are
// contiguous across them, so copies run as long as possible.
func (p *copyPlan) merge() {
	// drop dimensions of count 1: they contribute only to the base offset
	for i := 0; i < len(p.counts); {
		if p.counts[i] == 1 && len(p.counts) > 1 {
			p.counts = append(p.counts[:i], p.counts[i+1:]...)
			p.dstStrides = append(p.dstStrides[:i], p.dstStrides[i+1:]...)
			p.srcStrides = append(p.srcStrides[:i], p.srcStrides[i+1:]...)
			continue
		}
		i++
	}
	for i := len(p.counts) - 1; i > 0; i-- {
		if p.dstStrides[i-1] == p.counts[i]*p.dstStrides[i] && p.srcStrides[i-1] == p.counts[i]*p.srcStrides[i] {
			p.counts[i] *= p.counts[i-1]
			p.counts = append(p.counts[:i-1], p.counts[i:]...)
			p.dstStrides = append(p.dstStrides[:i-1], p.dstStrides[i:]...)
			p.srcStrides = append(p.srcStrides[:i-1], p.srcStrides[i:]...)
		}
	}
}

// run calls run(d, s, n) for every contiguous run of n elements, or one(d, s)
// per element when the innermost dimension is strided.
func (p copyPlan) run(run func(d, s, n int), one func(d, s int)) {
	last := len(p.counts) - 1
	if last < 0 { // 0-d
		run(p.dstBase, p.srcBase, 1)
		return
	}
	contiguous := p.dstStrides[last] == 1 && p.srcStrides[last] == 1
	inner := p.counts[last]
	idx := make([]int, last)
	d, s := p.dstBase, p.srcBase
	for {
		if contiguous {
			run(d, s, inner)
		} else {
			dd, ss := d, s
			for k := 0; k < inner; k++ {
				one(dd, ss)
				dd += p.dstStrides[last]
				ss += p.srcStrides[last]
			}
		}
		k := last - 1
		for ; k >= 0; k-- {
			idx[k]++
			d += p.dstStrides[k]
			s += p.srcStrides[k]
			if idx[k] < p.counts[k] {
				break
			}
			d -= idx[k] * p.dstStrides[k]
			s -= idx[k] * p.srcStrides[k]
			idx[k] = 0
		}
		if k < 0 {
			return
		}
	}
}

// cStrides returns element strides of a C-order array.
func cStrides(shape []int) []int {
	st := make([]int, len(shape))
	acc := 1
	for i := len(shape) - 1; i >= 0; i-- {
		st[i] = acc
		acc *= shape[i]
	}
	return st
}
