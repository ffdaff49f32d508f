package interop

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"testing"

	zbinary "github.com/zarrgw/zarrgw/tests/support/binary"
	"github.com/zarrgw/zarrgw/tests/support/pyenv"
	"github.com/zarrgw/zarrgw/tests/support/servers"
)

// structType is the record both sides write: the struct spec's example.
const structType = `{"name": "struct", "configuration": {"fields": [{"name": "id", "data_type": "int32"}, {"name": "flags", "data_type": "uint8"}, {"name": "value", "data_type": "float64"}]}}`

// TestStructArrays crosses the struct data type with zarr-python:
// zarr-python 3 writes a v3 array (its legacy "structured" form, base64
// fill) and a v2 structured array, and zarrgw reads every element's bytes
// as numpy has them; zarrgw writes a struct array (big endian) whose chunk
// holds exactly numpy's big-endian bytes of the same records, and its v2
// copy (cp --to-format 2), which zarr-python 3 and Debian's zarr-python
// 2.13 read exactly, fill value too; numpy loads zarrgw's .npy of it as
// its record type, and zarrgw writes numpy's big-endian .npy of the
// records into an array exactly. zarr-python 3.1 (the newest for the
// machine's Python 3.11) does not know the "struct" name, so it reads
// zarrgw's v3 array by its chunk bytes only.
func TestStructArrays(t *testing.T) {
	py := pyenv.Python(t, "zarr", "numpy")
	bin := zarrgwBinary
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), scriptTimeout)
	defer cancel()

	out, errOut, code := zbinary.Run(t, exec.CommandContext(ctx, py, "py/struct_arrays.py", "write", dir))
	if code != 0 {
		t.Fatalf("py/struct_arrays.py write: exit %d\n%s", code, errOut)
	}
	var written map[string]string
	if err := json.Unmarshal([]byte(out), &written); err != nil || len(written) != 2 {
		t.Fatalf("py/struct_arrays.py write: %v\n%s", err, out)
	}
	for path, want := range written {
		got := runOK(t, bin, "cat", path, "--format", "raw")
		if hex.EncodeToString(got) != want {
			t.Errorf("zarrgw read %s as\n%x\nzarr-python wrote\n%s", path, got, want)
		}
	}

	// zarrgw writes records i*1000-7, i, i/3 and leaves the last to the fill.
	raw := make([]byte, 0, 4*13)
	want := [][]any{}
	for i := range 4 {
		raw = binary.LittleEndian.AppendUint32(raw, uint32(int32(i*1000-7)))
		raw = append(raw, byte(i))
		raw = binary.LittleEndian.AppendUint64(raw, math.Float64bits(float64(i)/3))
		want = append(want, []any{float64(i*1000 - 7), float64(i), f64Hex(float64(i) / 3)})
	}
	nan := hex.EncodeToString(binary.LittleEndian.AppendUint64(nil, 0x7ff8000000000000)) // "NaN"
	want = append(want, []any{-1.0, 3.0, nan}, []any{-1.0, 3.0, nan})                    // the last element, and the fill value
	from := filepath.Join(dir, "records.raw")
	if err := os.WriteFile(from, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	store := filepath.Join(dir, "zarrgw")
	runOK(t, bin, "create", store, "--path", "v3", "--shape", "5", "--chunks", "2", "--dtype", structType,
		"--fill-value", `{"id": -1, "flags": 3, "value": "NaN"}`, "--codecs", `[{"name": "bytes", "configuration": {"endian": "big"}}]`)
	runOK(t, bin, "write", store, "--path", "v3", "--slice", "0:4", "--format", "raw", "--from", from)
	runOK(t, bin, "cp", filepath.Join(store, "v3"), filepath.Join(store, "v2"), "--to-format", "2")
	npy := runOK(t, bin, "cat", store, "--path", "v3", "--format", "npy")
	if err := os.WriteFile(filepath.Join(store, "v3.npy"), npy, 0o644); err != nil {
		t.Fatal(err)
	}

	// numpy's big-endian .npy, written by zarrgw into a struct array of
	// its own, reads back as the records little endian.
	runOK(t, bin, "create", store, "--path", "from_npy", "--shape", "4", "--chunks", "3", "--dtype", structType,
		"--fill-value", `{"id": 0, "flags": 0, "value": 0}`, "--codecs", `[{"name": "bytes", "configuration": {"endian": "little"}}]`)
	runOK(t, bin, "write", store, "--path", "from_npy", "--from", filepath.Join(dir, "records_be.npy"))
	if got := runOK(t, bin, "cat", store, "--path", "from_npy", "--format", "raw"); !bytes.Equal(got, raw) {
		t.Errorf("numpy's big-endian .npy written by zarrgw reads as\n%x\nwant\n%x", got, raw)
	}

	type checked struct {
		Zarr       string  `json:"zarr"`
		ChunkBytes *bool   `json:"chunk_bytes_equal"`
		V2         [][]any `json:"v2"`
		NPYDType   string  `json:"npy_dtype"`
		NPY        [][]any `json:"npy"`
	}
	readers := map[string]string{"zarr-python 3": py}
	if _, err := os.Stat("/usr/bin/python3"); err != nil {
		servers.Unavailable(t, "Debian's python3 (zarr-python 2.13): %v", err)
	}
	readers["zarr-python 2.13"] = "/usr/bin/python3"
	for name, interp := range readers {
		out, errOut, code := zbinary.Run(t, exec.CommandContext(ctx, interp, "py/struct_arrays.py", "check", store))
		if code != 0 {
			t.Errorf("%s: py/struct_arrays.py check: exit %d\n%s", name, code, errOut)
			continue
		}
		var got checked
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatalf("%s: %v\n%s", name, err, out)
		}
		if name == "zarr-python 3" && (got.ChunkBytes == nil || !*got.ChunkBytes) {
			t.Errorf("zarrgw's big-endian chunk c/0 is not numpy's big-endian bytes of the records (%s)", out)
		}
		if name == "zarr-python 3" && (got.NPYDType != "[('id', '<i4'), ('flags', 'u1'), ('value', '<f8')]" || !reflect.DeepEqual(got.NPY, want[:5])) {
			t.Errorf("numpy loaded zarrgw's .npy as %s %v; want the record type and %v", got.NPYDType, got.NPY, want[:5])
		}
		if !reflect.DeepEqual(got.V2, want) {
			t.Errorf("%s (zarr %s) read zarrgw's v2 copy as %v (then its fill value); want %v", name, got.Zarr, got.V2, want)
		} else {
			t.Logf("%s (zarr %s) read zarrgw's v2 struct array exactly", name, got.Zarr)
		}
	}
}

// f64Hex is a float64's bits as numpy's tobytes().hex() has them.
func f64Hex(f float64) string {
	return hex.EncodeToString(binary.LittleEndian.AppendUint64(nil, math.Float64bits(f)))
}

func runOK(t *testing.T, bin string, args ...string) []byte {
	t.Helper()
	out, errOut, code := zbinary.Run(t, exec.Command(bin, args...))
	if code != 0 {
		t.Fatalf("zarrgw %v: exit %d\n%s", args, code, errOut)
	}
	return []byte(out)
}
