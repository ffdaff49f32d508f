package meta

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// rectilinearDoc is a zarr.json of an int16 array of shape with a
// rectilinear grid of the given chunk_shapes (JSON).
func rectilinearDoc(shape, chunkShapes string) string {
	return `{"zarr_format":3,"node_type":"array","shape":` + shape + `,"data_type":"int16",` +
		`"chunk_grid":{"name":"rectilinear","configuration":{"kind":"inline","chunk_shapes":` + chunkShapes + `}},` +
		`"chunk_key_encoding":{"name":"default"},"fill_value":0,"codecs":[{"name":"bytes","configuration":{"endian":"little"}}]}`
}

// zarr-python's rectilinear documents parse, pass the checks, and their
// grids are written back as they were.
func TestRectilinearFixtures(t *testing.T) {
	dir := filepath.Join(fixturesDir(t), "zarr-metadata", "v3", "array")
	want := map[string]struct {
		edges   []Edges
		longest []int
	}{
		"rectilinear_grid.json":          {[]Edges{{Runs: []EdgeRun{{10, 1}, {20, 1}, {30, 1}, {40, 1}}}, {Uniform: 50}}, []int{40, 50}},
		"rectilinear_grid_with_rle.json": {[]Edges{{Runs: []EdgeRun{{10, 5}, {5, 1}, {5, 1}}}, {Runs: []EdgeRun{{15, 1}, {15, 1}}}}, []int{10, 15}},
	}
	for name, w := range want {
		doc, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		a, _, err := ParseV3(doc)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := a.Check(Limits{}); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !reflect.DeepEqual(a.ChunkEdges, w.edges) || !reflect.DeepEqual(a.ChunkShape, w.longest) {
			t.Errorf("%s: edges %+v longest %v, want %+v %v", name, a.ChunkEdges, a.ChunkShape, w.edges, w.longest)
		}
		out, err := a.MarshalV3()
		if err != nil {
			t.Fatal(err)
		}
		if got, want := normalizeDoc(t, out)["chunk_grid"], normalizeDoc(t, doc)["chunk_grid"]; !deepEqualJSON(got, want) {
			t.Errorf("%s: chunk_grid written back as %v, was %v", name, got, want)
		}
	}
}

// The registry's three chunk_grid cases, over shapes their edges cover.
func TestRectilinearGridCases(t *testing.T) {
	for shape, shapes := range map[string]string{
		"[100,50]":  `[[10,20,30,40],[50]]`,
		"[100,120]": `[[10,20,30,40],50]`,
		"[60,30]":   `[[[10,5],5,5],[15,15]]`,
	} {
		a, _, err := ParseV3([]byte(rectilinearDoc(shape, shapes)))
		if err == nil {
			err = a.Check(Limits{})
		}
		if err != nil {
			t.Errorf("%s over %s: %v", shapes, shape, err)
		}
	}
}

// Malformed grids are refused with the field and the reason.
func TestRectilinearRefusals(t *testing.T) {
	cases := []struct{ shape, shapes, says string }{
		{"[6]", `[[0,6]]`, "edge length 0, must be >= 1"},
		{"[6]", `[[[2,0]]]`, "element 0: element 1 is 0, must be >= 1"},
		{"[6]", `[[[2,3,1]]]`, "a run is [length, count], got 3 numbers"},
		{"[6]", `[[]]`, "no chunk edges"},
		{"[6]", `[0]`, "edge length 0"},
		{"[6]", `[[2,"a"]]`, "expected an integer"},
		{"[6,6]", `[[6]]`, "chunk_shapes has 1 dimensions, shape has 2"},
	}
	for _, c := range cases {
		_, _, err := ParseV3([]byte(rectilinearDoc(c.shape, c.shapes)))
		if err == nil || !strings.Contains(err.Error(), c.says) {
			t.Errorf("%s: %v, want %q", c.shapes, err, c.says)
		}
	}
	doc := strings.Replace(rectilinearDoc("[6]", `[[6]]`), `"kind":"inline"`, `"kind":"file"`, 1)
	if _, _, err := ParseV3([]byte(doc)); err == nil || !strings.Contains(err.Error(), `kind: unsupported value "file"`) {
		t.Errorf("kind file: %v", err)
	}
	// parsed, then refused by the checks
	for _, c := range []struct{ shape, shapes, says string }{
		{"[10]", `[[4,4]]`, "chunk_grid.chunk_shapes[0]: the edges add up to 8, short of the shape's 10"},
		{"[10]", `[[[1,1152921504606846976]]]`, "chunk_grid.chunk_shapes[0]: 1152921504606846976 chunk edges, more than the limit of 1048576 (max_chunk_edges)"},
		{"[10]", `[[[4611686018427387904,2],[1,1]]]`, "chunk_grid.chunk_shapes[0]: the edges add up beyond 64 bits"},
		{"[10]", `[[[1,9223372036854775807],[1,9223372036854775807]]]`, "the edges add up beyond 64 bits"},
	} {
		a, _, err := ParseV3([]byte(rectilinearDoc(c.shape, c.shapes)))
		if err != nil {
			t.Fatalf("%s: %v", c.shapes, err)
		}
		if err := a.Check(Limits{}); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), c.says) {
			t.Errorf("%s: %v, want %q", c.shapes, err, c.says)
		}
	}
}

// Sharded rectilinear grids: every edge a multiple of the inner chunk.
func TestRectilinearShards(t *testing.T) {
	sharded := func(shapes string) *ArrayMeta {
		doc := strings.Replace(rectilinearDoc("[12]", shapes), `"codecs":[{"name":"bytes","configuration":{"endian":"little"}}]`,
			`"codecs":[{"name":"sharding_indexed","configuration":{"chunk_shape":[2],"codecs":[{"name":"bytes"}],"index_codecs":[{"name":"bytes"},{"name":"crc32c"}]}}]`, 1)
		a, _, err := ParseV3([]byte(doc))
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	if a := sharded(`[[4,[2,2],4]]`); a.Check(Limits{}) != nil || !reflect.DeepEqual(a.InnerChunkShape(), []int{2}) {
		t.Errorf("shards of 4, 2, 2, 4 over inner chunks of 2: %v %v", a.Check(Limits{}), a.InnerChunkShape())
	}
	a := sharded(`[[4,3,5]]`)
	if err := a.Check(Limits{}); err == nil || !strings.Contains(err.Error(), "shards of 3 are not a multiple of the inner chunks of 2") {
		t.Errorf("shards of 3 over inner chunks of 2: %v", err)
	}
	if a.InnerChunkShape() != nil {
		t.Error("inner chunks that do not tile the shards were reported")
	}
}

// Resizing grows the last edges by one chunk, keeps them when shrinking.
func TestResizeEdges(t *testing.T) {
	edges := []Edges{{Runs: []EdgeRun{{4, 2}}}, {Uniform: 3}}
	got := ResizeEdges(edges, []int{8, 9}, []int{11, 20})
	want := []Edges{{Runs: []EdgeRun{{4, 2}, {3, 1}}}, {Uniform: 3}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("grown: %+v, want %+v", got, want)
	}
	if got := ResizeEdges(edges, []int{8, 9}, []int{2, 2}); !reflect.DeepEqual(got, edges) {
		t.Errorf("shrunk: %+v", got)
	}
	if !reflect.DeepEqual(edges[0].Runs, []EdgeRun{{4, 2}}) {
		t.Error("the edges resized were changed in place")
	}
}
