package arraycost

import (
	"slices"
	"testing"

	"github.com/zarrgw/zarrgw/core/checked"
	"github.com/zarrgw/zarrgw/core/grid"
)

// Chunks touched per dimension: every chunk of the span for short steps,
// one per element for steps of a chunk or more.
func TestChunksTouched(t *testing.T) {
	sel := grid.Selection{
		{Start: 0, Step: 1, Count: 100},  // chunks 0..9
		{Start: 5, Step: 3, Count: 10},   // 5..32: chunks 0..3
		{Start: 0, Step: 10, Count: 7},   // one per element
		{Start: 15, Step: 1, Count: 1},   // one
		{Start: 0, Step: 25, Count: 0},   // none
		{Start: 95, Step: 1, Count: 6},   // 95..100: chunks 9, 10
		{Start: 9, Step: 100, Count: 3},  // one per element
		{Start: 0, Step: 9, Count: 3},    // 0, 9, 18: chunks 0, 0, 1
		{Start: 10, Step: 11, Count: 2},  // 10, 21: chunks 1, 2
		{Start: 3, Step: 1, Count: 1000}, // 3..1002: chunks 0..100
	}
	want := []int{10, 4, 7, 1, 0, 2, 3, 2, 2, 101}
	got := make([]int, len(sel))
	for i, d := range sel {
		got[i] = grid.RegularAxis(10).Crossed(d)
	}
	if !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	var c checked.Calc
	if got := RowChunks([]int{1, 5, 3, 2}, &c); got != 6 || c.Overflowed() {
		t.Errorf("rowChunks: %d (overflowed %v), want 6", got, c.Overflowed())
	}
}
