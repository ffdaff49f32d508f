package interop

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	zbinary "github.com/zarrgw/zarrgw/tests/support/binary"
	"github.com/zarrgw/zarrgw/tests/support/pyenv"
)

// rectilinearArrays are the arrays the cross-check makes: rectilinear
// grids (explicit edges, runs, the shorthand integer, a last chunk past
// the end) under several codec chains.
var rectilinearArrays = []struct {
	path, shape, chunks, codecs string
}{
	{"bytes", "13,7", "3+2*3+4,5+4", `[{"name":"bytes","configuration":{"endian":"little"}}]`},
	{"big", "9,10", "4+5,3", `[{"name":"bytes","configuration":{"endian":"big"}},{"name":"crc32c"}]`},
	{"zstd", "13,7", "1+2+10,2*2+3", `[{"name":"bytes","configuration":{"endian":"little"}},{"name":"zstd","configuration":{"level":0,"checksum":false}}]`},
	{"gzip", "6,11", "6,4+8", `[{"name":"bytes","configuration":{"endian":"little"}},{"name":"gzip","configuration":{"level":5}}]`},
	{"sharded", "12,7", "4+2*2+4,6+6", `[{"name":"sharding_indexed","configuration":{"chunk_shape":[2,3],` +
		`"codecs":[{"name":"bytes","configuration":{"endian":"little"}},{"name":"zstd","configuration":{"level":0,"checksum":false}}],` +
		`"index_codecs":[{"name":"bytes","configuration":{"endian":"little"}},{"name":"crc32c"}],"index_location":"end"}}]`},
}

// rectValue is element (i, j) of an array of cols columns, as the
// Python side computes it too.
func rectValue(i, j, cols int) int32 { return int32(3*(i*cols+j) + 1) }

// zarr-python 3.1.6 has no rectilinear grid, nor have tensorstore 0.1.86
// or the zarrs pipeline (zarr-python parses the metadata). A rectilinear
// chunk is encoded as the only chunk of a regular array of its shape, so
// the cross-check goes chunk by chunk: zarr-python decodes each chunk
// zarrgw wrote (values exact; with no compressor, its own encoding of the
// chunk must be the same bytes), and writes each chunk of arrays zarrgw
// made empty, which zarrgw then reads exactly. The edges are expanded on
// the Python side from the spec's text.
func TestRectilinearChunksWithZarrPython(t *testing.T) {
	py := pyenv.Python(t, "zarr", "numpy")
	zarrgw := zarrgwBinary
	dir := t.TempDir()
	mine, theirs := filepath.Join(dir, "zarrgw.zarr"), filepath.Join(dir, "zarrpy.zarr")
	run := func(args ...string) {
		t.Helper()
		if out, errOut, code := zbinary.Run(t, exec.Command(zarrgw, args...)); code != 0 {
			t.Fatalf("zarrgw %v: exit %d\n%s%s", args, code, out, errOut)
		}
	}
	pyArgs := []string{"py/rectilinear_chunks.py"}
	for _, a := range rectilinearArrays {
		var rows, cols int
		if err := json.Unmarshal([]byte("["+a.shape+"]"), &[]*int{&rows, &cols}); err != nil {
			t.Fatal(err)
		}
		raw := make([]byte, 0, 4*rows*cols)
		for i := range rows {
			for j := range cols {
				raw = binary.LittleEndian.AppendUint32(raw, uint32(rectValue(i, j, cols)))
			}
		}
		from := filepath.Join(dir, a.path+".raw")
		if err := os.WriteFile(from, raw, 0o644); err != nil {
			t.Fatal(err)
		}
		for _, store := range []string{mine, theirs} {
			run("create", store, "--path", a.path, "--shape", a.shape, "--chunks", a.chunks, "--dtype", "int32",
				"--fill-value", "-1", "--codecs", a.codecs)
		}
		run("write", mine, "--path", a.path, "--format", "raw", "--from", from)
	}
	ctx, cancel := context.WithTimeout(context.Background(), scriptTimeout)
	defer cancel()
	results := map[string]map[string]rectResult{}
	for store, mode := range map[string]string{mine: "check", theirs: "write"} {
		args := append(slices.Clone(pyArgs), store)
		for _, a := range rectilinearArrays {
			args = append(args, mode, a.path)
		}
		out, errOut, code := zbinary.Run(t, exec.CommandContext(ctx, py, args...))
		if code != 0 {
			t.Fatalf("py/rectilinear_chunks.py %s: exit %d\n%s", mode, code, errOut)
		}
		var got map[string]rectResult
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatalf("py/rectilinear_chunks.py: output is not JSON: %v\n%.2000s", err, out)
		}
		results[mode] = got
	}
	var chunks, compared int
	for _, a := range rectilinearArrays {
		for _, mode := range []string{"check", "write"} {
			r, ok := results[mode][a.path]
			switch {
			case !ok || r.Chunks == 0:
				t.Errorf("%s %s: zarr-python handled no chunk: %+v", mode, a.path, r)
			case len(r.Errors) > 0:
				t.Errorf("%s %s (grid %s, codecs %s): %v", mode, a.path, a.chunks, a.codecs, r.Errors)
			}
			chunks += r.Chunks
			compared += r.BytesCompared
		}
		// what zarr-python wrote, chunk by chunk, zarrgw reads whole
		var rows, cols int
		_ = json.Unmarshal([]byte("["+a.shape+"]"), &[]*int{&rows, &cols})
		out, errOut, code := zbinary.Run(t, exec.Command(zarrgw, "cat", theirs, "--path", a.path))
		if code != 0 {
			t.Errorf("zarrgw cat %s: exit %d\n%s", a.path, code, errOut)
			continue
		}
		var doc struct{ Data []float64 }
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatalf("cat %s: %v", a.path, err)
		}
		for k, v := range doc.Data {
			if want := rectValue(k/cols, k%cols, cols); v != float64(want) {
				t.Errorf("zarrgw reads element %d of zarr-python's %s as %v, want %d", k, a.path, v, want)
				break
			}
		}
	}
	t.Logf("%d arrays, %d chunks cross-checked with zarr-python %s, %d compared byte for byte", len(rectilinearArrays), chunks, "3", compared)
	if compared == 0 {
		t.Error("no chunk was compared byte for byte")
	}
}

type rectResult struct {
	Chunks        int      `json:"chunks"`
	BytesCompared int      `json:"bytes_compared"`
	Errors        []string `json:"errors"`
}
