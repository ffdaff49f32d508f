package array_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/zarrgw/zarrgw/core/array"
	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/grid"
	"github.com/zarrgw/zarrgw/core/meta"
	"github.com/zarrgw/zarrgw/core/ndarray"
	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/plugins/codecs/bytescodec"
	"github.com/zarrgw/zarrgw/plugins/codecs/crc32c"
	"github.com/zarrgw/zarrgw/plugins/codecs/gzipcodec"
	"github.com/zarrgw/zarrgw/plugins/codecs/sharding"
)

var rectCodecs = codec.NewRegistry(bytescodec.Registration, gzipcodec.Registration, sharding.Registration, crc32c.Registration)

// rectArray creates an int32 array with a rectilinear grid, fill -1.
func rectArray(t *testing.T, s store.Store, shape, chunkShapes, codecs string) *array.Array {
	t.Helper()
	m, _, err := meta.ParseV3([]byte(`{"zarr_format":3,"node_type":"array","shape":` + shape + `,"data_type":"int32",` +
		`"chunk_grid":{"name":"rectilinear","configuration":{"kind":"inline","chunk_shapes":` + chunkShapes + `}},` +
		`"chunk_key_encoding":{"name":"default"},"fill_value":-1,"codecs":` + codecs + `}`))
	if err != nil {
		t.Fatal(err)
	}
	a, err := array.Create(context.Background(), s, "r", m, array.Options{Codecs: rectCodecs, Concurrency: 3})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// model is the array's expected elements in C order.
type model struct {
	shape []int
	v     []int32
}

func newModel(shape []int) *model {
	m := &model{shape: shape, v: make([]int32, ndarray.NumElements(shape))}
	for i := range m.v {
		m.v[i] = -1
	}
	return m
}

// each calls fn with the flat model index and output index of every
// element sel selects.
func (m *model) each(sel grid.Selection, fn func(flat, out int)) {
	counts := sel.Counts()
	idx := make([]int, len(sel))
	for out := 0; out < ndarray.NumElements(counts); out++ {
		rem, flat := out, 0
		for d := len(sel) - 1; d >= 0; d-- {
			idx[d] = rem % counts[d]
			rem /= counts[d]
		}
		for d := range sel {
			flat = flat*m.shape[d] + sel[d].Start + idx[d]*sel[d].Step
		}
		fn(flat, out)
	}
}

func int32s(v []int32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], uint32(x))
	}
	return b
}

func randomSel(r *rand.Rand, shape []int) grid.Selection {
	sel := make(grid.Selection, len(shape))
	for d, n := range shape {
		start := r.Intn(n)
		step := r.Intn(3) + 1
		sel[d] = grid.Dim{Start: start, Step: step, Count: r.Intn((n-start-1)/step+1) + 1}
	}
	return sel
}

// checkReads compares random selections, and the whole array read and
// streamed in small slabs, with the model.
func checkReads(t *testing.T, a *array.Array, m *model, r *rand.Rand) {
	t.Helper()
	ctx := context.Background()
	sels := []grid.Selection{grid.All(m.shape)}
	for range 30 {
		sels = append(sels, randomSel(r, m.shape))
	}
	for _, sel := range sels {
		got, err := a.Read(ctx, sel)
		if err != nil {
			t.Fatal(err)
		}
		want := make([]int32, ndarray.NumElements(sel.Counts()))
		m.each(sel, func(flat, out int) { want[out] = m.v[flat] })
		if string(got.Data) != string(int32s(want)) {
			t.Fatalf("read %+v: got %v, want %v", sel, got.Data, int32s(want))
		}
		var streamed []byte
		err = a.Stream(ctx, sel, array.StreamOptions{MemoryBudget: 64}, func(s *ndarray.Array) error {
			streamed = append(streamed, s.Data...)
			return nil
		})
		if err != nil || string(streamed) != string(int32s(want)) {
			t.Fatalf("stream %+v: %v, got %v want %v", sel, err, streamed, int32s(want))
		}
	}
}

// writeRandom writes random selections of values from a formula and
// records them in the model.
func writeRandom(t *testing.T, a *array.Array, m *model, r *rand.Rand, n int) {
	t.Helper()
	for w := range n {
		sel := randomSel(r, m.shape)
		vals := make([]int32, ndarray.NumElements(sel.Counts()))
		for i := range vals {
			vals[i] = int32(1000*w + 7*i + 1)
		}
		data := &ndarray.Array{DType: a.Meta().DataType, Shape: sel.Counts(), Data: int32s(vals)}
		if err := a.Write(context.Background(), sel, data); err != nil {
			t.Fatal(err)
		}
		m.each(sel, func(flat, out int) { m.v[flat] = vals[out] })
	}
}

// An array of a rectilinear grid reads back what was written, by any
// selection; each chunk is stored at its own shape.
func TestRectilinearReadWrite(t *testing.T) {
	for _, codecs := range []string{
		`[{"name":"bytes","configuration":{"endian":"little"}}]`,
		`[{"name":"bytes","configuration":{"endian":"little"}},{"name":"gzip","configuration":{"level":1}}]`,
	} {
		s := store.NewMemory()
		// rows: 3 | 2 2 2 | 4 (13); columns: 5 | 4, the last past the end (7)
		a := rectArray(t, s, "[13,7]", `[[3,[2,3],4],[5,4]]`, codecs)
		m := newModel([]int{13, 7})
		r := rand.New(rand.NewSource(41))
		writeRandom(t, a, m, r, 25)
		checkReads(t, a, m, r)
		if strings.Contains(codecs, "gzip") {
			continue
		}
		keys, err := store.ListAll(context.Background(), s, "r/c/")
		if err != nil {
			t.Fatal(err)
		}
		rows, cols := []int{3, 2, 2, 2, 4}, []int{5, 4}
		for _, k := range keys {
			var i, j int
			if _, err := fmt.Sscanf(k, "r/c/%d/%d", &i, &j); err != nil {
				t.Fatalf("key %s: %v", k, err)
			}
			v, err := s.Get(context.Background(), k, store.ByteRange{})
			if err != nil {
				t.Fatal(err)
			}
			if want := rows[i] * cols[j] * 4; len(v.Data) != want {
				t.Errorf("chunk %s holds %d bytes, want %d (%d x %d int32)", k, len(v.Data), want, rows[i], cols[j])
			}
		}
		if len(keys) == 0 {
			t.Error("no chunk stored")
		}
	}
}

// Shards of a rectilinear grid: inner chunks tile each shard.
func TestRectilinearSharded(t *testing.T) {
	s := store.NewMemory()
	a := rectArray(t, s, "[12,6]", `[[4,[2,2],4],6]`, `[{"name":"sharding_indexed","configuration":{"chunk_shape":[2,3],`+
		`"codecs":[{"name":"bytes","configuration":{"endian":"little"}}],"index_codecs":[{"name":"bytes","configuration":{"endian":"little"}},{"name":"crc32c"}],"index_location":"end"}}]`)
	m := newModel([]int{12, 6})
	r := rand.New(rand.NewSource(5))
	writeRandom(t, a, m, r, 20)
	checkReads(t, a, m, r)
}

// Growing a rectilinear array past its edges adds a chunk of the growth;
// shrinking keeps the edges and resets what was cut off.
func TestRectilinearResize(t *testing.T) {
	ctx := context.Background()
	s := store.NewMemory()
	a := rectArray(t, s, "[7,5]", `[[3,4],[2,3]]`, `[{"name":"bytes","configuration":{"endian":"little"}}]`)
	m := newModel([]int{7, 5})
	r := rand.New(rand.NewSource(9))
	writeRandom(t, a, m, r, 10)
	if err := a.Resize(ctx, []int{10, 5}); err != nil {
		t.Fatal(err)
	}
	if got := a.Meta().ChunkEdges[0]; len(got.Runs) != 3 || got.Runs[2] != (meta.EdgeRun{Length: 3, Count: 1}) {
		t.Fatalf("grown edges %+v, want 3, 4, 3", got)
	}
	grown := newModel([]int{10, 5})
	copy(grown.v, m.v) // rows are contiguous: the first 7 rows are the old array
	checkReads(t, a, grown, r)
	if err := a.Resize(ctx, []int{2, 5}); err != nil {
		t.Fatal(err)
	}
	if err := a.Resize(ctx, []int{10, 5}); err != nil {
		t.Fatal(err)
	}
	back := newModel([]int{10, 5})
	copy(back.v, m.v[:2*5])
	checkReads(t, a, back, r)
	v, err := s.Get(ctx, "r/zarr.json", store.ByteRange{})
	if err != nil {
		t.Fatal(err)
	}
	stored, _, err := meta.ParseV3(v.Data)
	if err != nil {
		t.Fatal(err)
	}
	reopened, err := array.New(ctx, s, "r", stored, array.Options{Codecs: rectCodecs})
	if err != nil {
		t.Fatal(err)
	}
	checkReads(t, reopened, back, r)
}
