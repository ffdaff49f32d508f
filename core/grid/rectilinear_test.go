package grid

import (
	"math/rand"
	"slices"
	"strings"
	"testing"

	"github.com/zarrgw/zarrgw/core/meta"
)

// model is a brute-force rectilinear axis: the chunk of every index,
// found by walking the edges.
type model []int

func (m model) chunkOf(i int) (chunk, local int) {
	for c, e := range m {
		if i < e {
			return c, i
		}
		i -= e
	}
	return len(m), i
}

func randomEdges(r *rand.Rand) []int {
	edges := make([]int, r.Intn(6)+1)
	for i := range edges {
		edges[i] = r.Intn(7) + 1
	}
	return edges
}

func sum(v []int) int {
	s := 0
	for _, n := range v {
		s += n
	}
	return s
}

// Every index of a rectilinear axis lands in the chunk the edges say, at
// the right offset; counts and bounds agree with the model.
func TestRectilinearAxisAgainstModel(t *testing.T) {
	r := rand.New(rand.NewSource(41))
	for iter := 0; iter < 500; iter++ {
		m := model(randomEdges(r))
		x, err := RectilinearAxis(m)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < sum(m); i++ {
			c, local := m.chunkOf(i)
			if got := x.Chunk(i); got != c {
				t.Fatalf("edges %v: index %d in chunk %d, want %d", m, i, got, c)
			}
			if got := i - x.Start(c); got != local || x.Len(c) != m[c] {
				t.Fatalf("edges %v: index %d at %d of a chunk of %d, want %d of %d", m, i, got, x.Len(c), local, m[c])
			}
		}
		for extent := 0; extent <= sum(m); extent++ {
			want := 0
			if extent > 0 {
				c, _ := m.chunkOf(extent - 1)
				want = c + 1
			}
			if got := x.Count(extent); got != want {
				t.Fatalf("edges %v over %d: %d chunks, want %d", m, extent, got, want)
			}
		}
		if got, want := x.Longest(), slices.Max(m); got != want {
			t.Fatalf("edges %v: longest %d, want %d", m, got, want)
		}
	}
}

// The spec's own example: edges [[16, 10], [24, 14]]; index (20, 15) is
// in chunk (1, 0) at (4, 15).
func TestRectilinearSpecExample(t *testing.T) {
	g, err := NewRectilinear([]int{26, 38}, [][]int{{16, 10}, {24, 14}})
	if err != nil {
		t.Fatal(err)
	}
	sel := Selection{{Start: 20, Step: 1, Count: 1}, {Start: 15, Step: 1, Count: 1}}
	ps := g.Project(sel)
	if len(ps) != 1 || !slices.Equal(ps[0].Chunk, []int{1, 0}) || ps[0].InChunk[0].Start != 4 || ps[0].InChunk[1].Start != 15 {
		t.Fatalf("(20, 15): %+v", ps)
	}
	if got := g.ChunkShapeAt([]int{0, 1}); !slices.Equal(got, []int{16, 14}) {
		t.Errorf("chunk (0, 1) has shape %v, want [16 14]", got)
	}
	if got := g.GridShape(); !slices.Equal(got, []int{2, 2}) {
		t.Errorf("grid shape %v", got)
	}
}

// The spec's metadata example: five ways to write edges over 6.
func TestRectilinearSpecEncodings(t *testing.T) {
	doc := `{"zarr_format":3,"node_type":"array","shape":[6,6,6,6,6],"data_type":"uint8",` +
		`"chunk_grid":{"name":"rectilinear","configuration":{"kind":"inline","chunk_shapes":[4,[1,2,3],[[4,2]],[[1,3],3],[4,4,4]]}},` +
		`"chunk_key_encoding":{"name":"default"},"fill_value":0,"codecs":[{"name":"bytes"}]}`
	a, _, err := meta.ParseV3([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Check(meta.Limits{}); err != nil {
		t.Fatal(err)
	}
	g, err := ForArray(a, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := [][]int{{4, 4}, {1, 2, 3}, {4, 4}, {1, 1, 1, 3}, {4, 4}} // the last: the third 4 lies past the end
	for d, edges := range want {
		x := g.Axis(d)
		var got []int
		for c := 0; c < x.Count(6); c++ {
			got = append(got, x.Len(c))
		}
		if !slices.Equal(got, edges) {
			t.Errorf("dimension %d: edges %v, want %v", d, got, edges)
		}
	}
	if !slices.Equal(a.ChunkShape, []int{4, 3, 4, 3, 4}) {
		t.Errorf("longest chunks %v", a.ChunkShape)
	}
}

// Projections of random strided selections onto random rectilinear
// grids cover every selected element once, at the position the model
// gives.
func TestRectilinearProjectAgainstModel(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	for iter := 0; iter < 400; iter++ {
		rank := r.Intn(3) + 1
		shape := make([]int, rank)
		edges := make([][]int, rank)
		sel := make(Selection, rank)
		for i := range shape {
			edges[i] = randomEdges(r)
			shape[i] = sum(edges[i]) - r.Intn(min(sum(edges[i]), 3))
			if shape[i] == 0 {
				shape[i] = 1
			}
			start := r.Intn(shape[i])
			step := r.Intn(4) + 1
			count := r.Intn((shape[i]-start-1)/step+1) + 1
			sel[i] = Dim{Start: start, Step: step, Count: count}
		}
		g, err := NewRectilinear(shape, edges)
		if err != nil {
			t.Fatal(err)
		}
		seen := map[[3]int]int{}
		touched := make([]map[int]bool, rank)
		for d := range touched {
			touched[d] = map[int]bool{}
		}
		for _, p := range g.Project(sel) {
			inb := g.InBounds(p.Chunk)
			forEachIndex(counts(p.Out), func(k []int) bool {
				var outKey [3]int
				for d := range k {
					outKey[d] = p.Out[d].Start + k[d]*p.Out[d].Step
					local := p.InChunk[d].Start + k[d]*p.InChunk[d].Step
					want := sel[d].Start + outKey[d]*sel[d].Step
					c, l := model(edges[d]).chunkOf(want)
					if p.Chunk[d] != c || local != l || local >= inb[d] {
						t.Fatalf("edges %v: output %d maps to chunk %d at %d (in bounds %d), want chunk %d at %d",
							edges[d], outKey[d], p.Chunk[d], local, inb[d], c, l)
					}
					touched[d][c] = true
				}
				seen[outKey]++
				return true
			})
		}
		coveredOnce(t, sel, seen)
		for d, n := range g.ChunksCrossed(sel) {
			if n < len(touched[d]) {
				t.Fatalf("dimension %d: %d chunks crossed counted, %d touched", d, n, len(touched[d]))
			}
		}
	}
}

// A run of 2^60 chunks is refused from its count: no slice of that size
// is made.
func TestRectilinearBombRefused(t *testing.T) {
	a := &meta.ArrayMeta{Shape: []int{10}, ChunkShape: []int{1},
		ChunkEdges: []meta.Edges{{Runs: []meta.EdgeRun{{Length: 1, Count: 1 << 60}}}}}
	if _, err := ForArray(a, 0); err == nil || !strings.Contains(err.Error(), "max_chunk_edges") {
		t.Fatalf("2^60 edges: %v", err)
	}
	a.ChunkEdges[0].Runs = append(a.ChunkEdges[0].Runs, meta.EdgeRun{Length: 1, Count: 1<<63 - 1})
	if _, err := ForArray(a, 0); err == nil || !strings.Contains(err.Error(), "more than 2^63") {
		t.Fatalf("a count beyond 64 bits: %v", err)
	}
}
