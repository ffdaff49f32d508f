package interop

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	zbinary "github.com/zarrgw/zarrgw/tests/support/binary"
	"github.com/zarrgw/zarrgw/tests/support/pyenv"
)

// numtypeExpect is what py/numtypes.py make prints for one type: the
// values ml_dtypes' numpy holds (float64, [re, im] or integers; NaN and
// infinities as strings), the fill value and each chunk's bytes.
type numtypeExpect struct {
	Values []json.RawMessage `json:"values"`
	Fill   json.RawMessage   `json:"fill"`
	Chunks map[string]string `json:"chunks"`
	NPY    *string           `json:"npy"`
}

// TestNarrowNumberTypes crosses zarrgw with ml_dtypes' numpy and
// tensorstore for every narrow number type of the registry and for
// tensorstore's float8_e4m3fn (zarr-python 3.1.6 supports none of them),
// 28 types in all: zarrgw writes ml_dtypes' bytes of values
// from a formula and reads back exactly ml_dtypes' values; its chunk files
// are byte for byte what ml_dtypes gives for the same chunks (edge chunks
// padded with the fill value); an array with no chunk reads as its fill
// value; tensorstore reads zarrgw's arrays to the same bytes, and zarrgw
// reads tensorstore's arrays to ml_dtypes' values.
func TestNarrowNumberTypes(t *testing.T) {
	py := pyenv.Python(t, "ml_dtypes", "tensorstore", "numpy")
	zarrgw := zarrgwBinary
	dir := t.TempDir()

	var want map[string]numtypeExpect
	runPy(t, py, &want, "make", dir)
	if len(want) != 28 {
		t.Fatalf("py/numtypes.py made %d types, want 28", len(want))
	}
	store := filepath.Join(dir, "zarrgw.zarr")
	codecs := `[{"name":"bytes","configuration":{"endian":"little"}}]`
	read := 0
	for name, exp := range want {
		for _, args := range [][]string{
			{"create", store, "--path", name, "--shape", "5,3", "--chunks", "2,2", "--dtype", name, "--fill-value", string(exp.Fill), "--codecs", codecs},
			{"write", store, "--path", name, "--format", "raw", "--from", filepath.Join(dir, name+".raw")},
			{"create", store, "--path", name + "_empty", "--shape", "5,3", "--chunks", "2,2", "--dtype", name, "--fill-value", string(exp.Fill), "--codecs", codecs},
		} {
			zarrgwOK(t, zarrgw, args...)
		}
		checkValues(t, "zarrgw's "+name, catJSON(t, zarrgw, store, name), exp.Values)
		fills := make([]json.RawMessage, len(exp.Values))
		for i := range fills {
			fills[i] = exp.Fill
		}
		checkValues(t, "zarrgw's empty "+name, catJSON(t, zarrgw, store, name+"_empty"), fills)
		read += 2
		if exp.NPY != nil {
			if got := hex.EncodeToString([]byte(zarrgwOK(t, zarrgw, "cat", store, "--path", name, "--format", "npy"))); got != *exp.NPY {
				t.Errorf("zarrgw cat --format npy of %s:\n%s\nnp.save of ml_dtypes' array:\n%s", name, got, *exp.NPY)
			}
		}
		if ts := filepath.Join(dir, "ts.zarr"); fileExists(filepath.Join(ts, name, "zarr.json")) {
			checkValues(t, "tensorstore's "+name, catJSON(t, zarrgw, ts, name), exp.Values)
			read++
		}
	}
	var check struct {
		Checked int      `json:"checked"`
		Errors  []string `json:"errors"`
	}
	runPy(t, py, &check, "check", dir)
	for _, e := range check.Errors {
		t.Error(e)
	}
	if check.Checked < 28*6 {
		t.Errorf("py/numtypes.py check compared only %d chunks and arrays", check.Checked)
	}
	t.Logf("%d types: zarrgw read %d arrays exactly; chunk files and tensorstore reads compared: %d, mismatches: %d",
		len(want), read, check.Checked, len(check.Errors))
}

func runPy(t *testing.T, py string, out any, args ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), scriptTimeout)
	defer cancel()
	stdout, errOut, code := zbinary.Run(t, exec.CommandContext(ctx, py, append([]string{"py/numtypes.py"}, args...)...))
	if code != 0 {
		t.Fatalf("py/numtypes.py %v: exit %d\n%s", args, code, errOut)
	}
	if err := json.Unmarshal([]byte(stdout), out); err != nil {
		t.Fatalf("py/numtypes.py %v: output is not JSON: %v\n%.2000s", args, err, stdout)
	}
}

func zarrgwOK(t *testing.T, zarrgw string, args ...string) string {
	t.Helper()
	out, errOut, code := zbinary.Run(t, exec.Command(zarrgw, args...))
	if code != 0 {
		t.Fatalf("zarrgw %v: exit %d\n%s%s", args, code, out, errOut)
	}
	return out
}

func catJSON(t *testing.T, zarrgw, store, path string) []json.RawMessage {
	t.Helper()
	var doc struct {
		Data []json.RawMessage `json:"data"`
	}
	out := zarrgwOK(t, zarrgw, "cat", store, "--path", path, "--format", "json")
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("zarrgw cat %s: %v\n%.500s", path, err, out)
	}
	return doc.Data
}

// checkValues compares element by element: numbers by their float64 bits
// (so -0 and 0 differ), strings ("NaN", "Infinity") and pairs likewise.
func checkValues(t *testing.T, what string, got, want []json.RawMessage) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: %d values, want %d", what, len(got), len(want))
		return
	}
	for i := range want {
		if !sameJSONValue(got[i], want[i]) {
			t.Errorf("%s: element %d is %s, ml_dtypes %s", what, i, got[i], want[i])
			return
		}
	}
}

func sameJSONValue(a, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return fmt.Sprint(canonical(x)) == fmt.Sprint(canonical(y))
}

// canonical turns numbers into their float64 bits, in nested pairs too.
func canonical(v any) any {
	switch x := v.(type) {
	case float64:
		return math.Float64bits(x)
	case []any:
		out := make([]any, len(x))
		for i := range x {
			out[i] = canonical(x[i])
		}
		return out
	}
	return v
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
