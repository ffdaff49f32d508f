package interop

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"testing"

	zbinary "github.com/zarrgw/zarrgw/tests/support/binary"
)

// n5Zarr is the zarr.json that reads N5 array "a" of py/n5_zarr2.py with
// n5_default: zarr-python 2 gives N5 the reversed shape, (7, 5), which
// the codec's full transpose reads in N5's own order.
const n5Zarr = `{"zarr_format":3,"node_type":"array","shape":[7,5],"data_type":"uint16",
"chunk_grid":{"name":"regular","configuration":{"chunk_shape":[3,2]}},
"chunk_key_encoding":{"name":"v2","configuration":{"separator":"/"}},"fill_value":0,
"codecs":[{"name":"n5_default","configuration":{"codecs":[{"name":"transpose","configuration":{"order":[1,0]}},
{"name":"bytes","configuration":{"endian":"big"}},{"name":"gzip","configuration":{"level":1}}]}}]}`

// n5Attributes are the N5 attributes of the same array.
const n5Attributes = `{"dimensions":[7,5],"blockSize":[3,2],"dataType":"uint16","compression":{"type":"gzip","level":1,"useZlib":false}}`

// n5DefaultWithZarr2 cross-checks n5_default with Debian's
// zarr-python 2.13 N5 store: zarrgw reads the N5 array it wrote
// (x[n1, n2] = z[n2, n1], z[i, j] = 100*i + j + 1, edge blocks padded),
// and it reads the array zarrgw wrote through n5_default.
func n5DefaultWithZarr2(t *testing.T, zarrgw string) {
	requirePython(t)
	py := python
	want := make([][]float64, 7)
	var raw []byte
	for n1 := range want {
		want[n1] = make([]float64, 5)
		for n2 := range want[n1] {
			want[n1][n2] = float64(100*n2 + n1 + 1)
			raw = binary.LittleEndian.AppendUint16(raw, uint16(want[n1][n2]))
		}
	}

	theirs := filepath.Join(t.TempDir(), "zarr2.n5")
	if _, errOut, code := zbinary.Run(t, exec.Command(py, "py/n5_zarr2.py", "write", theirs)); code != 0 {
		t.Fatalf("py/n5_zarr2.py write: exit %d\n%s", code, errOut)
	}
	writeFile(t, filepath.Join(theirs, "a", "zarr.json"), n5Zarr)
	out, errOut, code := zbinary.Run(t, exec.Command(zarrgw, "cat", filepath.Join(theirs, "a"), "--format", "json"))
	var doc struct {
		Data []float64 `json:"data"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &doc) != nil {
		t.Fatalf("zarrgw cat of zarr-python 2's N5 array: exit %d\n%s%s", code, out, errOut)
	}
	var flat []float64
	for _, row := range want {
		flat = append(flat, row...)
	}
	if !reflect.DeepEqual(doc.Data, flat) {
		t.Errorf("zarrgw read zarr-python 2's N5 array as\n%v\nwant\n%v", doc.Data, want)
	}

	mine := filepath.Join(t.TempDir(), "zarrgw.n5")
	writeFile(t, filepath.Join(mine, "attributes.json"), `{"n5":"2.0.0"}`)
	writeFile(t, filepath.Join(mine, "a", "attributes.json"), n5Attributes)
	writeFile(t, filepath.Join(mine, "a", "zarr.json"), n5Zarr)
	from := filepath.Join(t.TempDir(), "values.raw")
	if err := os.WriteFile(from, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	if out, errOut, code := zbinary.Run(t, exec.Command(zarrgw, "write", filepath.Join(mine, "a"), "--format", "raw", "--from", from)); code != 0 {
		t.Fatalf("zarrgw write: exit %d\n%s%s", code, out, errOut)
	}
	out, errOut, code = zbinary.Run(t, exec.Command(py, "py/n5_zarr2.py", "read", mine))
	var z [][]float64
	if code != 0 || json.Unmarshal([]byte(out), &z) != nil {
		t.Fatalf("py/n5_zarr2.py read: exit %d\n%s%s", code, out, errOut)
	}
	for i := range 5 {
		for j := range 7 {
			if i >= len(z) || j >= len(z[i]) || z[i][j] != want[j][i] {
				t.Fatalf("zarr-python 2 read zarrgw's N5 array as\n%v\nwant the transpose of\n%v", z, want)
			}
		}
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(fmt.Errorf("writing %s: %w", path, err))
	}
}
