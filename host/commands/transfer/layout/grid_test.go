package layout

import (
	"maps"
	"slices"
	"testing"

	"github.com/zarrgw/zarrgw/core/grid"
	"github.com/zarrgw/zarrgw/core/meta"
)

// A rectilinear source chunk's size is shared among the regular output
// chunks it overlaps by the volume of each overlap, counted here element
// by element; the output's chunk boxes are cut at its edges.
func TestWeighOverlapRectilinear(t *testing.T) {
	src := &meta.ArrayMeta{Shape: []int{13, 7}, ChunkShape: []int{4, 5},
		ChunkEdges: []meta.Edges{{Runs: []meta.EdgeRun{{Length: 3, Count: 1}, {Length: 2, Count: 3}, {Length: 4, Count: 1}}}, {Runs: []meta.EdgeRun{{Length: 5, Count: 1}, {Length: 4, Count: 1}}}}}
	out := &meta.ArrayMeta{Shape: []int{13, 7}, ChunkShape: []int{4, 4}}
	counts := GridCounts(out)
	if !slices.Equal(counts, []int{4, 2}) || !slices.Equal(GridCounts(src), []int{5, 2}) {
		t.Fatalf("counts %v %v", counts, GridCounts(src))
	}
	// source chunk (4, 1): rows 9..12, columns 5..6 (its edge of 4 cut at 7)
	if box := ChunkBox(src, []int{4, 1}); box[0] != (grid.Dim{Start: 9, Step: 1, Count: 4}) || box[1] != (grid.Dim{Start: 5, Step: 1, Count: 2}) {
		t.Errorf("box of (4, 1): %+v", box)
	}
	for _, c := range [][]int{{0, 0}, {1, 1}, {4, 0}, {4, 1}} {
		weights := map[int64]int64{}
		box := ChunkBox(src, c)
		volume := int64(box[0].Count * box[1].Count)
		WeighOverlap(weights, c, volume*10, src, out, counts)
		want := map[int64]int64{}
		for i := box[0].Start; i < box[0].Start+box[0].Count; i++ {
			for j := box[1].Start; j < box[1].Start+box[1].Count; j++ {
				want[int64((i/4)*counts[1]+j/4)] += 10
			}
		}
		if !maps.Equal(weights, want) {
			t.Errorf("chunk %v: weights %v, want %v", c, weights, want)
		}
	}
	weights := map[int64]int64{}
	WeighOverlap(weights, []int{5, 0}, 100, src, out, counts) // a stray key past the edges
	if len(weights) != 0 {
		t.Errorf("a chunk past the edges weighed %v", weights)
	}
}
