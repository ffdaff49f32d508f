package array

import (
	"iter"
	"math/rand"
	"slices"
	"testing"

	"github.com/zarrgw/zarrgw/core/grid"
)

// Walking the slabs of a selection visits every selected element once, in
// C order of the output, and no slab is larger than asked unless one
// element is.
func TestSlabsCoverSelectionInOrder(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for iter := 0; iter < 2000; iter++ {
		rank := r.Intn(4)
		shape, chunks := make([]int, rank), make([]int, rank)
		sel := make(grid.Selection, rank)
		for d := range shape {
			shape[d], chunks[d] = 1+r.Intn(12), 1+r.Intn(5)
			start := r.Intn(shape[d])
			step := 1 + r.Intn(3)
			count := r.Intn((shape[d]-1-start)/step + 2)
			sel[d] = grid.Dim{Start: start, Step: step, Count: count, Drop: count == 1 && r.Intn(2) == 0}
		}
		elem := int64(1 + r.Intn(8))
		maxBytes := elem * int64(1+r.Intn(40))
		var innerShape []int
		if r.Intn(2) == 0 { // sharded: inner chunks that divide the chunks
			innerShape = make([]int, rank)
			for d := range chunks {
				chunks[d] *= 1 + r.Intn(3)
				innerShape[d] = chunks[d] / []int{1, 2, 3}[r.Intn(3)]
				if innerShape[d] < 1 || chunks[d]%innerShape[d] != 0 {
					innerShape[d] = chunks[d]
				}
			}
		}
		plan, err := planSlabs(sel, regularAxes(chunks), innerShape, elem, maxBytes)
		if err != nil {
			t.Fatal(err)
		}

		var got [][]int
		plan.each(func(sub grid.Selection) bool {
			if err := sub.Check(shape); err != nil {
				t.Fatalf("slab %v of %v: %v", sub, sel, err)
			}
			n := 1
			for _, d := range sub {
				n *= d.Count
			}
			if n > plan.maxElems {
				t.Fatalf("slab %v has %d elements, plan says at most %d", sub, n, plan.maxElems)
			}
			if int64(n)*elem > maxBytes && n > 1 {
				t.Fatalf("slab %v of %d bytes exceeds %d", sub, int64(n)*elem, maxBytes)
			}
			got = append(got, elements(sub)...)
			return true
		})
		if want := elements(sel); !slices.EqualFunc(got, want, slices.Equal) {
			t.Fatalf("shape %v chunks %v sel %v budget %d: slabs visit %d elements, want %d in order", shape, chunks, sel, maxBytes, len(got), len(want))
		}
	}
}

// elements lists the array indexes a selection selects, in C order.
func elements(sel grid.Selection) [][]int {
	for _, d := range sel {
		if d.Count == 0 {
			return nil
		}
	}
	out := [][]int{}
	idx := make([]int, len(sel))
	for {
		e := make([]int, len(sel))
		for d, i := range idx {
			e[d] = sel[d].Start + i*sel[d].Step
		}
		out = append(out, e)
		if !next(idx, sel.Counts()) {
			return out
		}
	}
}

// Slabs along one dimension follow chunk boundaries: whole chunk spans
// are grouped, and a span larger than a slab is cut evenly.
func TestGroupSpans(t *testing.T) {
	cases := []struct {
		spans, inner []int
		rows         int
		want         [][2]int
	}{
		{[]int{4, 4, 4, 2}, nil, 8, [][2]int{{0, 8}, {8, 14}}},
		{[]int{4, 4, 4}, nil, 5, [][2]int{{0, 4}, {4, 8}, {8, 12}}},
		{[]int{10}, nil, 4, [][2]int{{0, 3}, {3, 6}, {6, 10}}},
		{[]int{2, 10, 1}, nil, 4, [][2]int{{0, 2}, {2, 5}, {5, 8}, {8, 12}, {12, 13}}},
		{nil, nil, 4, nil},
		// shards of 8 in inner chunks of 2, 3 rows to a slab: cut at inner
		// chunk boundaries, never inside an inner chunk
		{[]int{8, 8}, []int{2, 2, 2, 2, 2, 2, 2, 2}, 3, [][2]int{{0, 2}, {2, 4}, {4, 6}, {6, 8}, {8, 10}, {10, 12}, {12, 14}, {14, 16}}},
		{[]int{8, 4}, []int{2, 2, 2, 2, 2, 2}, 5, [][2]int{{0, 4}, {4, 8}, {8, 12}}},
		// an inner chunk larger than a slab is cut evenly
		{[]int{6}, []int{6}, 4, [][2]int{{0, 3}, {3, 6}}},
	}
	for _, c := range cases {
		var innerOf func(lo, n int) iter.Seq[int]
		if c.inner != nil {
			innerOf = innerSpans(t, c.inner)
		}
		var got [][2]int
		lo := 0
		for n := range groupSpans(slices.Values(c.spans), innerOf, c.rows) {
			got = append(got, [2]int{lo, lo + n})
			lo += n
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("groupSpans(%v, %v, %d) = %v, want %v", c.spans, c.inner, c.rows, got, c.want)
		}
	}
}

// innerSpans hands out the inner spans of each span from a list of them
// all, as a plan finds them in the selection.
func innerSpans(t *testing.T, all []int) func(lo, n int) iter.Seq[int] {
	at, next := 0, 0 // the output index and list position of the next inner span
	return func(lo, n int) iter.Seq[int] {
		for at < lo { // skip the inner spans of spans grouped whole
			at, next = at+all[next], next+1
		}
		if at != lo {
			t.Fatalf("a span starts at %d, inside an inner span", lo)
		}
		return func(yield func(int) bool) {
			for k := 0; k < n; next++ {
				k, at = k+all[next], at+all[next]
				if !yield(all[next]) {
					return
				}
			}
		}
	}
}

// A plan over a selection crossing 2^52 chunks along its level is made
// and walked lazily: its first slabs come at once, within the budget, and
// no list of its spans is made (one was 32 PiB).
func TestHugeSelectionPlansLazily(t *testing.T) {
	sel := grid.Selection{{Start: 0, Step: 1, Count: 1 << 62}}
	plan, err := planSlabs(sel, regularAxes([]int{1024}), nil, 1, 64<<20)
	if err != nil {
		t.Fatal(err)
	}
	if plan.maxElems != 64<<20 {
		t.Errorf("slab buffers of %d elements, want the budget's %d", plan.maxElems, 64<<20)
	}
	slabs, next := 0, 0
	plan.each(func(sub grid.Selection) bool {
		if sub[0].Start != next || sub[0].Count != 64<<20 {
			t.Fatalf("slab %d: %+v, want %d elements from %d", slabs, sub[0], 64<<20, next)
		}
		next += sub[0].Count
		slabs++
		return slabs < 3
	})
	if slabs != 3 {
		t.Errorf("walked %d slabs, want 3", slabs)
	}
	if _, err := planSlabs(grid.Selection{{Count: 1 << 40}, {Count: 1 << 40}}, regularAxes([]int{1, 1}), nil, 1, 64<<20); err == nil {
		t.Error("a plan of 2^80 elements was made")
	}
}

// regularAxes are the axes of a regular grid of chunks.
func regularAxes(chunks []int) func(d int) grid.Axis {
	return func(d int) grid.Axis { return grid.RegularAxis(chunks[d]) }
}
