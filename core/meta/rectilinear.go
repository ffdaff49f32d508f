package meta

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/zarrgw/zarrgw/core/checked"
)

// The rectilinear chunk grid (zarr-extensions chunk-grids/rectilinear):
// per dimension either one chunk length repeated (the shorthand integer)
// or an explicit list of chunk edge lengths, where [length, count] stands
// for count chunks of that length. The edges of a dimension must reach
// the array's end and may go past it by whole chunks. Kept as written
// (runs, never expanded), so a document of a few bytes cannot make its
// reader allocate; Check bounds the expanded count (max_chunk_edges).

// RectilinearName is the registered name of the rectilinear chunk grid.
const RectilinearName = "rectilinear"

// EdgeRun is Count chunks of edge Length along a dimension.
type EdgeRun struct {
	Length, Count int
}

// Edges are the chunk edge lengths of one dimension of a rectilinear grid.
type Edges struct {
	// Uniform, when > 0, is the shorthand integer: chunks of this length
	// cover the dimension, whatever its length (Runs is then nil).
	Uniform int
	// Runs are the edge lengths in order: a bare integer is a run of one.
	Runs []EdgeRun
}

// Count is how many chunk edges the dimension has over an extent.
func (e Edges) Count(extent int) (int, bool) {
	if e.Uniform > 0 {
		return max(checked.CeilDiv(extent, e.Uniform), 1), true
	}
	var c checked.Calc
	n := int64(0)
	for _, r := range e.Runs {
		n = c.Add(n, int64(r.Count))
	}
	return int(n), !c.Overflowed()
}

// Longest is the largest edge length.
func (e Edges) Longest() int {
	if e.Uniform > 0 {
		return e.Uniform
	}
	n := 0
	for _, r := range e.Runs {
		n = max(n, r.Length)
	}
	return n
}

// Expand lists the edge lengths over an extent, refusing more than
// maxEdges of them before allocating anything.
func (e Edges) Expand(extent, maxEdges int) ([]int, error) {
	n, ok := e.Count(extent)
	if !ok || n > maxEdges {
		return nil, invalidf("%s chunk edges, more than the limit of %d (max_chunk_edges)", countText(int64(n), !ok), maxEdges)
	}
	out := make([]int, 0, n)
	if e.Uniform > 0 {
		for range n {
			out = append(out, e.Uniform)
		}
		return out, nil
	}
	for _, r := range e.Runs {
		for range r.Count {
			out = append(out, r.Length)
		}
	}
	return out, nil
}

// span is the sum of the edge lengths (false when it overflows).
func (e Edges) span(extent int) (int, bool) {
	if e.Uniform > 0 {
		n, _ := e.Count(extent)
		return checked.Mul(n, e.Uniform)
	}
	var c checked.Calc
	s := int64(0)
	for _, r := range e.Runs {
		s = c.Add(s, c.Mul(int64(r.Length), int64(r.Count)))
	}
	return int(s), !c.Overflowed()
}

// Rectilinear reports whether the array has a rectilinear chunk grid.
func (a *ArrayMeta) Rectilinear() bool { return a.ChunkEdges != nil }

// LongestChunks is the shape of the largest chunk of each dimension of a
// rectilinear grid: what ChunkShape holds for one, a bound on any chunk.
func LongestChunks(edges []Edges) []int {
	out := make([]int, len(edges))
	for d, e := range edges {
		out[d] = e.Longest()
	}
	return out
}

// validateEdges checks a rectilinear grid against the shape: one entry per
// dimension, positive lengths and counts, edges that reach the end, and
// ChunkShape its longest edges.
func (a *ArrayMeta) validateEdges() error {
	if a.ChunkEdges == nil {
		return nil
	}
	if len(a.ChunkEdges) != len(a.Shape) {
		return invalidf("chunk_grid.chunk_shapes has %d dimensions, shape has %d", len(a.ChunkEdges), len(a.Shape))
	}
	for d, e := range a.ChunkEdges {
		if e.Uniform <= 0 && len(e.Runs) == 0 {
			return invalidf("chunk_grid.chunk_shapes[%d]: no chunk edges", d)
		}
		for _, r := range e.Runs {
			if r.Length <= 0 || r.Count <= 0 {
				return invalidf("chunk_grid.chunk_shapes[%d]: edge %d x %d: lengths and counts must be > 0", d, r.Length, r.Count)
			}
		}
		span, ok := e.span(a.Shape[d])
		if !ok {
			return invalidf("chunk_grid.chunk_shapes[%d]: the edges add up beyond 64 bits", d)
		}
		if span < a.Shape[d] {
			return invalidf("chunk_grid.chunk_shapes[%d]: the edges add up to %d, short of the shape's %d", d, span, a.Shape[d])
		}
		if a.ChunkShape[d] != e.Longest() {
			return invalidf("chunk shape[%d] is %d, the longest rectilinear edge is %d", d, a.ChunkShape[d], e.Longest())
		}
	}
	return nil
}

// checkEdges bounds the chunk edges each dimension lists.
func (a *ArrayMeta) checkEdges(l Limits) error {
	for d, e := range a.ChunkEdges {
		n, ok := e.Count(a.Shape[d])
		if !ok || n > l.MaxChunkEdges {
			return invalidf("chunk_grid.chunk_shapes[%d]: %s chunk edges, more than the limit of %d (max_chunk_edges)",
				d, countText(int64(n), !ok), l.MaxChunkEdges)
		}
	}
	return nil
}

// parseRectilinear reads a rectilinear grid's configuration.
func parseRectilinear(ext Extension) ([]Edges, error) {
	cfg, err := configFields(ext)
	if err != nil {
		return nil, err
	}
	kindRaw, ok := cfg.take("kind")
	if !ok {
		return nil, errors.New("missing kind")
	}
	if kind, err := parseString(kindRaw); err != nil || kind != "inline" {
		return nil, fmt.Errorf("kind: unsupported value %s (want \"inline\")", abbreviate(kindRaw))
	}
	shapesRaw, ok := cfg.take("chunk_shapes")
	if !ok {
		return nil, errors.New("missing chunk_shapes")
	}
	if len(cfg) > 0 {
		return nil, fmt.Errorf("unknown configuration key %q", cfg.sortedKeys()[0])
	}
	out, err := ParseChunkShapes(shapesRaw)
	if err != nil && !strings.HasPrefix(err.Error(), "chunk_shapes") {
		err = fmt.Errorf("chunk_shapes: %w", err)
	}
	return out, err
}

// parseEdges reads one dimension: an integer, or a list of integers and
// [length, count] pairs.
func parseEdges(raw json.RawMessage) (Edges, error) {
	if t := bytes.TrimSpace(raw); len(t) == 0 || t[0] != '[' {
		n, err := positive(raw)
		return Edges{Uniform: n}, err
	}
	elems, err := parseArray(raw)
	if err != nil {
		return Edges{}, err
	}
	if len(elems) == 0 {
		return Edges{}, errors.New("no chunk edges")
	}
	runs := make([]EdgeRun, len(elems))
	for i, e := range elems {
		if runs[i], err = parseRun(e); err != nil {
			return Edges{}, fmt.Errorf("element %d: %w", i, err)
		}
	}
	return Edges{Runs: runs}, nil
}

func parseRun(raw json.RawMessage) (EdgeRun, error) {
	if t := bytes.TrimSpace(raw); len(t) == 0 || t[0] != '[' {
		n, err := positive(raw)
		return EdgeRun{Length: n, Count: 1}, err
	}
	pair, err := parseInts(raw, 1)
	if err != nil {
		return EdgeRun{}, err
	}
	if len(pair) != 2 {
		return EdgeRun{}, fmt.Errorf("a run is [length, count], got %d numbers", len(pair))
	}
	return EdgeRun{Length: pair[0], Count: pair[1]}, nil
}

func positive(raw json.RawMessage) (int, error) {
	n, err := parseInt(raw)
	if err != nil {
		return 0, err
	}
	if n < 1 {
		return 0, fmt.Errorf("edge length %d, must be >= 1", n)
	}
	return n, nil
}

// MarshalChunkShapes writes chunk_shapes: the shorthand integer, or the runs
// (a run of one as a bare integer, as zarr-python writes them).
func MarshalChunkShapes(edges []Edges) []byte {
	b := []byte{'['}
	for d, e := range edges {
		if d > 0 {
			b = append(b, ',')
		}
		if e.Uniform > 0 {
			b = strconv.AppendInt(b, int64(e.Uniform), 10)
			continue
		}
		b = append(b, '[')
		for i, r := range e.Runs {
			if i > 0 {
				b = append(b, ',')
			}
			if r.Count == 1 {
				b = strconv.AppendInt(b, int64(r.Length), 10)
			} else {
				b = append(b, ints([]int{r.Length, r.Count})...)
			}
		}
		b = append(b, ']')
	}
	return append(b, ']')
}

// CloneEdges copies a rectilinear grid's edges (nil stays nil).
func CloneEdges(edges []Edges) []Edges {
	if edges == nil {
		return nil
	}
	out := make([]Edges, len(edges))
	for d, e := range edges {
		out[d] = Edges{Uniform: e.Uniform, Runs: append([]EdgeRun(nil), e.Runs...)}
	}
	return out
}

// ResizeEdges are a rectilinear grid's edges for a new shape, as
// zarr-python resizes them: a dimension grown past its last edge gets one
// more chunk of the growth; a shrunk one keeps its edges (they may go past
// the end). A shorthand integer follows the shape by itself. nil (a
// regular grid) stays nil.
func ResizeEdges(edges []Edges, old, shape []int) []Edges {
	out := CloneEdges(edges)
	for d, e := range out {
		if e.Uniform > 0 {
			continue
		}
		if span, ok := e.span(old[d]); ok && shape[d] > span {
			out[d].Runs = append(out[d].Runs, EdgeRun{Length: shape[d] - span, Count: 1})
		}
	}
	return out
}

// ParseChunkShapes reads a rectilinear grid's chunk_shapes as the spec
// writes them (one entry per dimension: an integer, or a list of integers
// and [length, count] pairs).
func ParseChunkShapes(raw json.RawMessage) ([]Edges, error) {
	dims, err := parseArray(raw)
	if err != nil {
		return nil, err
	}
	out := make([]Edges, len(dims))
	for d, raw := range dims {
		if out[d], err = parseEdges(raw); err != nil {
			return nil, fmt.Errorf("chunk_shapes[%d]: %w", d, err)
		}
	}
	return out, nil
}
