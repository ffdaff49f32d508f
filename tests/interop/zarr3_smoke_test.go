package interop

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	zbinary "github.com/zarrgw/zarrgw/tests/support/binary"
	"github.com/zarrgw/zarrgw/tests/support/pyenv"
)

// smokeReaders are the readers py/zarr3_smoke.py runs, by the prefix of
// the name it reports each under.
var smokeReaders = []string{"zarr-python 3.", "zarrs pipeline", "tensorstore "}

// TestZarr3Smoke proves the pinned Python environment works: zarrgw
// creates and writes a small v3 array (edge chunks in both dimensions,
// negative values), and zarr-python 3, zarr-python with the zarrs codec
// pipeline, and tensorstore each read back exactly the values this test
// wrote.
func TestZarr3Smoke(t *testing.T) {
	py := pyenv.Python(t, "zarr", "zarrs", "tensorstore", "numpy")
	zarrgw := zarrgwBinary

	const rows, cols = 7, 5
	want := make([]float64, rows*cols) // JSON numbers decode as float64
	raw := make([]byte, 0, 4*rows*cols)
	for i := range rows {
		for j := range cols {
			v := int32(i*100000 - j*7 - 3)
			want[i*cols+j] = float64(v)
			raw = binary.LittleEndian.AppendUint32(raw, uint32(v))
		}
	}
	dir := t.TempDir()
	store := filepath.Join(dir, "smoke.zarr")
	from := filepath.Join(dir, "values.raw")
	if err := os.WriteFile(from, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"create", store, "--path", "g/a", "--shape", "7,5", "--chunks", "3,2", "--dtype", "int32", "--fill-value", "-1"},
		{"write", store, "--path", "g/a", "--format", "raw", "--from", from},
	} {
		if out, errOut, code := zbinary.Run(t, exec.Command(zarrgw, args...)); code != 0 {
			t.Fatalf("zarrgw %v: exit %d\n%s%s", args, code, out, errOut)
		}
	}

	ctx, cancel := context.WithTimeout(context.Background(), scriptTimeout)
	defer cancel()
	out, errOut, code := zbinary.Run(t, exec.CommandContext(ctx, py, "py/zarr3_smoke.py", store, "g/a"))
	if code != 0 {
		t.Fatalf("py/zarr3_smoke.py: exit %d\n%s", code, errOut)
	}
	var got map[string]struct {
		Shape []int     `json:"shape"`
		DType string    `json:"dtype"`
		Data  []float64 `json:"data"`
		Error string    `json:"error"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("py/zarr3_smoke.py: output is not JSON: %v\n%.2000s", err, out)
	}
	for _, prefix := range smokeReaders {
		name, r, ok := readerByPrefix(got, prefix)
		if !ok {
			t.Errorf("no result from a reader named %q*", prefix)
			continue
		}
		switch {
		case r.Error != "":
			t.Errorf("%s could not read the array: %s", name, r.Error)
		case !reflect.DeepEqual(r.Shape, []int{rows, cols}) || r.DType != "int32":
			t.Errorf("%s read shape %v dtype %s, want [%d %d] int32", name, r.Shape, r.DType, rows, cols)
		case !reflect.DeepEqual(r.Data, want):
			t.Errorf("%s read\n%v\nwant\n%v", name, r.Data, want)
		default:
			t.Logf("%s read the %d values exactly", name, len(want))
		}
	}
}

// readerByPrefix returns the entry of m whose name starts with prefix.
func readerByPrefix[V any](m map[string]V, prefix string) (string, V, bool) {
	for name, v := range m {
		if strings.HasPrefix(name, prefix) {
			return name, v, true
		}
	}
	var zero V
	return "", zero, false
}
