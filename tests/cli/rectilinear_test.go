package cli

import (
	"bytes"
	endian "encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	bin "github.com/zarrgw/zarrgw/tests/support/binary"
)

// npyInt32 is a .npy document (version 1) of little-endian int32 values.
func npyInt32(shape []int, v []int32) []byte {
	dims := make([]string, len(shape))
	for i, n := range shape {
		dims[i] = fmt.Sprint(n)
	}
	header := fmt.Sprintf("{'descr': '<i4', 'fortran_order': False, 'shape': (%s,), }", strings.Join(dims, ", "))
	pad := 64 - (10+len(header)+1)%64
	header += strings.Repeat(" ", pad%64) + "\n"
	var b bytes.Buffer
	b.WriteString("\x93NUMPY\x01\x00")
	endian.Write(&b, endian.LittleEndian, uint16(len(header)))
	b.WriteString(header)
	endian.Write(&b, endian.LittleEndian, v)
	return b.Bytes()
}

// catInts runs cat and returns the shape and elements it prints.
func catInts(t *testing.T, dir string, args ...string) ([]int, []float64) {
	t.Helper()
	out := must(t, dir, append([]string{"cat"}, args...)...)
	var doc struct {
		Shape []int
		Data  []float64
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("cat %v printed %q: %v", args, out, err)
	}
	return doc.Shape, doc.Data
}

// A rectilinear array made, written and read with the CLI: each chunk
// stored at its own edges, slices across chunk boundaries exact, cp to a
// regular grid and back, and to v2 only re-chunked regularly (read back
// by Debian's zarr-python 2.13).
func TestRectilinearRoundTrip(t *testing.T) {
	dir := t.TempDir()
	// rows 3 | 2 2 2 | 4 (13); columns 5 | 4, the last past the end (7)
	out := must(t, dir, "create", "r.zarr", "--path", "a", "--shape", "13,7", "--chunks", "3+2*3+4,5+4",
		"--dtype", "int32", "--fill-value", "-1", "--codecs", `[{"name":"bytes","configuration":{"endian":"little"}}]`)
	if !strings.Contains(out, "chunks rectilinear 3+2*3+4,5+4") {
		t.Errorf("create printed %q", out)
	}
	values := make([]int32, 13*7)
	for i := range values {
		values[i] = int32(3*i + 1)
	}
	write(t, filepath.Join(dir, "a.npy"), string(npyInt32([]int{13, 7}, values)))
	must(t, dir, "write", "r.zarr", "--path", "a", "--from", "a.npy")

	rows, cols := []int{3, 2, 2, 2, 4}, []int{5, 4}
	for i, r := range rows {
		for j, c := range cols {
			fi, err := os.Stat(filepath.Join(dir, "r.zarr", "a", "c", fmt.Sprint(i), fmt.Sprint(j)))
			if err != nil {
				t.Fatal(err)
			}
			if want := int64(r * c * 4); fi.Size() != want {
				t.Errorf("chunk %d/%d: %d bytes, want %d (%d x %d int32)", i, j, fi.Size(), want, r, c)
			}
		}
	}

	// rows 2..11 step 3, columns 4..6: across row and column chunks
	want := func(rows, cols []int) []float64 {
		var out []float64
		for _, r := range rows {
			for _, c := range cols {
				out = append(out, float64(values[r*7+c]))
			}
		}
		return out
	}
	check := func(store string) {
		t.Helper()
		shape, got := catInts(t, dir, store, "--path", "a", "--slice", "2:12:3,4:7")
		if w := want([]int{2, 5, 8, 11}, []int{4, 5, 6}); !slices.Equal(shape, []int{4, 3}) || !slices.Equal(got, w) {
			t.Errorf("%s [2:12:3,4:7]: %v %v, want %v", store, shape, got, w)
		}
		if _, got := catInts(t, dir, store, "--path", "a"); !slices.Equal(got, want([]int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, []int{0, 1, 2, 3, 4, 5, 6})) {
			t.Errorf("%s: the whole array differs: %v", store, got)
		}
	}
	check("r.zarr")
	checkGateway(t, dir, "r.zarr", want([]int{2, 5, 8, 11}, []int{4, 5, 6}))

	must(t, dir, "cp", "r.zarr", "reg.zarr", "--chunks", "4,4")
	if out := must(t, dir, "inspect", "reg.zarr"); !strings.Contains(out, "chunks=[4,4]") {
		t.Errorf("regular copy: %s", out)
	}
	check("reg.zarr")
	must(t, dir, "cp", "reg.zarr", "back.zarr", "--chunks", `[[[2,6],1],[3,4]]`)
	if out := must(t, dir, "inspect", "back.zarr"); !strings.Contains(out, "chunks=rectilinear 2*6+1,3+4") {
		t.Errorf("rectilinear copy: %s", out)
	}
	check("back.zarr")

	if _, stderr, code := run(t, dir, "cp", "r.zarr", "v2.zarr", "--to-format", "2"); code == 0 ||
		!strings.Contains(stderr, "array /a: no Zarr v2 form: chunk grid rectilinear: Zarr v2 has only regular chunks") {
		t.Errorf("cp --to-format 2 of a rectilinear array: exit %d\n%s", code, stderr)
	}
	must(t, dir, "cp", "r.zarr", "v2.zarr", "--to-format", "2", "--chunks", "5,5")
	check("v2.zarr")
	py := exec.Command("/usr/bin/python3", "-c", `import sys, zarr, numpy
a = zarr.open(sys.argv[1], mode="r")
assert a.chunks == (5, 5), a.chunks
want = (numpy.arange(13 * 7, dtype="<i4") * 3 + 1).reshape(13, 7)
assert (a[:] == want).all(), a[:]
print("ok")`, filepath.Join(dir, "v2.zarr", "a"))
	if b, err := py.CombinedOutput(); err != nil || strings.TrimSpace(string(b)) != "ok" {
		t.Errorf("zarr-python 2.13 reading the v2 copy: %v\n%s", err, b)
	}
}

// zarr-python's rectilinear documents open: inspect prints their grids,
// and cat reads them as fill values (no chunk is stored).
func TestRectilinearFixtureDocuments(t *testing.T) {
	dir := t.TempDir()
	fixtures := filepath.Join(repoRoot(), "..", "shared", "fixtures", "zarr-metadata", "v3", "array")
	for name, grid := range map[string]string{
		"rectilinear_grid.json":          "chunks=rectilinear 10+20+30+40,50",
		"rectilinear_grid_with_rle.json": "chunks=rectilinear 10*5+5+5,15+15",
	} {
		doc, err := os.ReadFile(filepath.Join(fixtures, name))
		if err != nil {
			t.Fatal(err)
		}
		store := strings.TrimSuffix(name, ".json") + ".zarr"
		write(t, filepath.Join(dir, store, "zarr.json"), string(doc))
		if out := must(t, dir, "inspect", store); !strings.Contains(out, grid) {
			t.Errorf("%s: inspect printed %q, want %q", name, out, grid)
		}
		shape, got := catInts(t, dir, store, "--slice", "5:15,10:20")
		if !slices.Equal(shape, []int{10, 10}) || !slices.Equal(got, make([]float64, 100)) {
			t.Errorf("%s: cat read %v %v, want 100 zeros", name, shape, got)
		}
	}
}

// checkGateway serves dir's store and asks the array API for the slice
// 2:12:3,4:7 of /a (across chunk edges), a picture, and the key API for
// a chunk (stored at its own edges: 2 x 5 int32).
func checkGateway(t *testing.T, dir, store string, want []float64) {
	t.Helper()
	file := filepath.Join(dir, "zarrgw.hcl")
	write(t, file, `store "fs" "d" {
  root = "`+filepath.Join(dir, store)+`"
}
dataset "d" {
  store = store.fs.d
}
server {
  listen = "127.0.0.1:0"
}
`)
	g := bin.Serve(t, binary, file)
	get := func(path string) (*http.Response, []byte) {
		t.Helper()
		resp, err := http.Get(g.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return resp, b
	}
	resp, body := get("/d/d/a?slice=2:12:3,4:7&format=json")
	var doc struct {
		Shape []int
		Data  []float64
	}
	if err := json.Unmarshal(body, &doc); resp.StatusCode != 200 || err != nil || !slices.Equal(doc.Shape, []int{4, 3}) || !slices.Equal(doc.Data, want) {
		t.Errorf("array API slice: %d %s (%v), want %v", resp.StatusCode, body, err, want)
	}
	if resp, body := get("/d/d/a?format=png"); resp.StatusCode != 200 || !bytes.HasPrefix(body, []byte("\x89PNG")) {
		t.Errorf("picture: %d %s, %.40q", resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
	if resp, body := get("/d/d/a/c/1/0"); resp.StatusCode != 200 || len(body) != 2*5*4 {
		t.Errorf("key API chunk c/1/0: %d, %d bytes, want 40", resp.StatusCode, len(body))
	}
}
