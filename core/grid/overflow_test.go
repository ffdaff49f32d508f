package grid

import (
	"math"
	"slices"
	"testing"
)

// A step as long as an int selects one index, as Python's range does;
// computing the count as (stop-start+step-1)/step wrapped to nothing.
func TestParseHugeStep(t *testing.T) {
	sel, err := Parse("0:10:9223372036854775807,3::4611686018427387904", []int{10, 10})
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []int{1, 1} {
		if sel[i].Count != want {
			t.Errorf("dimension %d: %+v selects %d indexes, want %d", i, sel[i], sel[i].Count, want)
		}
	}
	if err := sel.Check([]int{10, 10}); err != nil {
		t.Error(err)
	}
}

// A selection whose last index overflows is beyond every array; the
// wrapped index passed the check before.
func TestCheckOverflowingSelection(t *testing.T) {
	for _, d := range []Dim{
		{Start: 1, Step: math.MaxInt, Count: 3},
		{Start: math.MaxInt, Step: 1, Count: 2},
		{Start: 0, Step: 1 << 62, Count: 5},
	} {
		if err := (Selection{d}).Check([]int{10}); err == nil {
			t.Errorf("%+v passed the check of an array of 10", d)
		}
		if _, ok := d.Last(); ok {
			t.Errorf("%+v: Last reported no overflow", d)
		}
	}
}

// A grid whose element count overflows is refused: every count of its
// chunks or elements would be wrong.
func TestNewRefusesOverflowingShape(t *testing.T) {
	if _, err := New([]int{1 << 40, 1 << 40}, []int{1 << 30, 1 << 30}); err == nil {
		t.Error("a grid of 2^80 elements was made")
	}
	g, err := New([]int{math.MaxInt}, []int{math.MaxInt / 2})
	if err != nil {
		t.Fatal(err)
	}
	if n := g.GridShape()[0]; n != 3 {
		t.Errorf("chunks of MaxInt/2 over MaxInt: %d, want 3 (ceiling division wrapped)", n)
	}
}

// Counting the chunks a dimension crosses is lazy: 2^62 chunks of one
// element are counted as far as asked, not listed.
func TestChunkCountsAreLazy(t *testing.T) {
	var got []int
	for n := range ChunkCounts(Dim{Start: 5, Step: 3, Count: 1 << 62}, RegularAxis(4)) {
		if got = append(got, n); len(got) == 4 {
			break
		}
	}
	// indexes 5 | 8, 11 | 14 | 17 | ...: chunks [4, 8), [8, 12), ...
	if want := []int{1, 2, 1, 1}; !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	last := 0
	for n := range ChunkCounts(Dim{Start: math.MaxInt - 10, Step: 5, Count: 3}, RegularAxis(4)) {
		last += n
	}
	if last != 3 {
		t.Errorf("near MaxInt: counted %d indexes, want 3", last)
	}
}
