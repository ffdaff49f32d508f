package cli

import (
	"path/filepath"
	"strings"
	"testing"
)

// spec31Doc is an array in Zarr 3.1's forms: short-hand names for the
// grid's key encoding, the data type and a codec, and extra top-level
// members given by the caller.
func spec31Doc(chunks, extra string) string {
	return `{"zarr_format": 3, "node_type": "array", "shape": [4], "data_type": "int16",
 "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": ` + chunks + `}},
 "chunk_key_encoding": "default", "fill_value": -2,
 "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}, "crc32c"]` + extra + `}`
}

// Zarr 3.1's metadata rules as the command line meets them: short-hand
// names and a must_understand: false member are read; a member that must
// be understood, a chunk size of 0 and a node named zarr.json are refused
// with one line naming the array and what is wrong.
func TestSpec31Rules(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "ok", "zarr.json"), spec31Doc("[2]", `, "note": {"must_understand": false, "x": 1}`))
	if out := must(t, dir, "cat", "ok", "--format", "json"); !strings.Contains(out, `"data": [-2, -2, -2, -2]`) {
		t.Errorf("cat of a 3.1 array read %s, want four fill values -2", out)
	}
	write(t, filepath.Join(dir, "must", "zarr.json"), spec31Doc("[2]", `, "note": {"must_understand": true, "x": 1}`))
	fails(t, dir, []string{"inspect", "must"}, "must", `unknown field "note"`, `"must_understand": false`)
	write(t, filepath.Join(dir, "zero", "zarr.json"), spec31Doc("[0]", ""))
	fails(t, dir, []string{"inspect", "zero"}, "zero", "chunk_shape: element 0 is 0")
	fails(t, dir, []string{"create", "new.zarr", "--path", "a/zarr.json", "--shape", "4", "--dtype", "int8"}, `node name "zarr.json" is reserved`)
}
