package grid

import (
	"fmt"
	"sort"

	"github.com/zarrgw/zarrgw/core/checked"
)

// Axis is one dimension of a chunk grid: where its chunks begin and end.
// A regular axis has chunks of one length; a rectilinear one lists where
// each chunk ends (the prefix sums of its edge lengths), and finds the
// chunk of an index by binary search. Every chunk of either has its full
// length; the array's end may cut the last ones it covers.
type Axis struct {
	size int   // a regular axis's chunk length (0: rectilinear)
	ends []int // a rectilinear axis's chunk ends, increasing
}

// RegularAxis is an axis of chunks of length size (> 0).
func RegularAxis(size int) Axis { return Axis{size: size} }

// RectilinearAxis is an axis of chunks of the given edge lengths, each
// > 0, in order; they must not add up beyond an int.
func RectilinearAxis(edges []int) (Axis, error) {
	if len(edges) == 0 {
		return Axis{}, fmt.Errorf("no chunk edges")
	}
	ends := make([]int, len(edges))
	end := 0
	for i, e := range edges {
		var ok bool
		if e <= 0 {
			return Axis{}, fmt.Errorf("chunk edge %d is %d, must be > 0", i, e)
		}
		if end, ok = checked.Add(end, e); !ok {
			return Axis{}, fmt.Errorf("chunk edges add up beyond 64 bits")
		}
		ends[i] = end
	}
	return Axis{ends: ends}, nil
}

// Regular reports the chunk length of a regular axis.
func (x Axis) Regular() (int, bool) { return x.size, x.size > 0 }

// Chunk is the chunk holding index i (>= 0). On a rectilinear axis an
// index past the last edge gives the number of edges.
func (x Axis) Chunk(i int) int {
	if x.size > 0 {
		return i / x.size
	}
	// the first chunk whose end exceeds i
	return sort.Search(len(x.ends), func(c int) bool { return x.ends[c] > i })
}

// Start is the index where chunk c begins.
func (x Axis) Start(c int) int {
	if x.size > 0 {
		return c * x.size
	}
	if c == 0 {
		return 0
	}
	return x.ends[c-1]
}

// Len is chunk c's length, the array's end ignored: its length in the
// codecs.
func (x Axis) Len(c int) int {
	if x.size > 0 {
		return x.size
	}
	return x.ends[c] - x.Start(c)
}

// Count is how many chunks hold the first extent indexes.
func (x Axis) Count(extent int) int {
	if x.size > 0 {
		return checked.CeilDiv(extent, x.size)
	}
	if extent == 0 {
		return 0
	}
	return x.Chunk(extent-1) + 1
}

// Longest is the longest chunk of the axis.
func (x Axis) Longest() int {
	if x.size > 0 {
		return x.size
	}
	n, prev := 0, 0
	for _, e := range x.ends {
		n, prev = max(n, e-prev), e
	}
	return n
}

// Crossed is how many chunks hold indexes d selects: every chunk of its
// span when the step is shorter than the shortest chunk it may meet,
// else one per index at most (so too, as a bound, when the span is past
// counting).
func (x Axis) Crossed(d Dim) int {
	if x.size > 0 {
		return d.ChunksCrossed(x.size)
	}
	last, ok := d.Last()
	if d.Count == 0 {
		return 0
	}
	if !ok {
		return d.Count
	}
	return min(x.Chunk(last)-x.Chunk(d.Start)+1, d.Count)
}

// Bounds is where chunk c begins and its length, for coordinates that
// come from outside (a stored key): false when c is no chunk of the axis
// (negative, past a rectilinear axis's edges, or beginning beyond an int).
func (x Axis) Bounds(c int) (start, length int, ok bool) {
	switch {
	case c < 0:
		return 0, 0, false
	case x.size > 0:
		start, ok = checked.Mul(c, x.size)
		return start, x.size, ok
	case c >= len(x.ends):
		return 0, 0, false
	}
	return x.Start(c), x.Len(c), true
}
