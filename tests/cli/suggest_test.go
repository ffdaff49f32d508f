package cli

import (
	"os"
	"path/filepath"
	"testing"
)

// Mistakes get a suggestion, on one line: a node path given as a second
// argument, a --path that does not exist, a group where an array is
// needed, a numpy type string or a near miss for --dtype.
func TestDidYouMean(t *testing.T) {
	dir := t.TempDir()
	must(t, dir, "create", "mydata.zarr", "--path", "t2m", "--shape", "4,4", "--dtype", "float32")
	abs := filepath.Join(dir, "mydata.zarr")

	fails(t, dir, []string{"cat", "mydata.zarr", "t2m"}, "did you mean: zarrgw cat mydata.zarr --path t2m")
	fails(t, dir, []string{"cat", "mydata.zarr", "t2m", "--format", "npy"}, "did you mean: zarrgw cat mydata.zarr --path t2m --format npy")
	fails(t, dir, []string{"inspect", "mydata.zarr", "t2m"}, "did you mean: zarrgw inspect mydata.zarr --path t2m")
	fails(t, dir, []string{"cat", "mydata.zarr", "--path", "t2n"}, "no array or group at /t2n in "+abs, "did you mean --path t2m?")
	fails(t, dir, []string{"cat", "mydata.zarr", "--path", "T2M"}, "did you mean --path t2m?")
	fails(t, dir, []string{"inspect", "mydata.zarr", "--path", "nothing/like/it"}, "no array or group at /nothing/like/it in "+abs)
	fails(t, dir, []string{"cat", "mydata.zarr"}, "/ in "+abs+" is a group, not an array", "--path: t2m")
	fails(t, dir, []string{"create", "mydata.zarr", "--path", "x", "--shape", "4", "--dtype", "f4"},
		`--dtype "f4"`, "did you mean float32?", "accepted: bool, int8", "complex128", "rN")
	fails(t, dir, []string{"create", "mydata.zarr", "--path", "x", "--shape", "4", "--dtype", "<i2"}, "did you mean int16?")
	fails(t, dir, []string{"create", "mydata.zarr", "--path", "x", "--shape", "4", "--dtype", "flaot32"}, "did you mean float32?")
	fails(t, dir, []string{"create", "mydata.zarr", "--path", "x", "--shape", "4", "--dtype", "string"}, "no fixed size", "accepted:")
}

// Errors about a dataset name it, its declaration and the directory its
// fs store resolved to; a write to a read-only dataset is refused before
// anything is written, naming the line that makes it so.
func TestDatasetErrorsNameTheDataset(t *testing.T) {
	dir := t.TempDir()
	src := `store "fs" "local" {
  root = "."
}

dataset "open" {
  store  = store.fs.local
  prefix = "open.zarr"
}

dataset "frozen" {
  store     = store.fs.local
  prefix    = "open.zarr"
  read_only = true
}
`
	cfg := filepath.Join(dir, "conf", "zarrgw.hcl")
	write(t, cfg, src)
	elsewhere := t.TempDir()
	must(t, elsewhere, "create", "-c", cfg, "open", "--path", "t", "--shape", "4", "--dtype", "uint8")
	if _, err := os.Stat(filepath.Join(dir, "conf", "open.zarr", "t", "zarr.json")); err != nil {
		t.Fatalf(`root = "." is not the configuration's directory: %v`, err)
	}
	in := filepath.Join(t.TempDir(), "in.raw")
	write(t, in, "abcd")
	ro := lineRef(cfg, lineOf(t, src, "read_only = true"))
	fails(t, elsewhere, []string{"write", "-c", cfg, "frozen", "--path", "t", "--format", "raw", "--from", in},
		`dataset "frozen" is read-only (`+ro+`: read_only = true)`)
	fails(t, elsewhere, []string{"create", "-c", cfg, "frozen", "--path", "u", "--shape", "4", "--dtype", "uint8"},
		`dataset "frozen" is read-only (`+ro+`: read_only = true)`)
	if _, err := os.Stat(filepath.Join(dir, "conf", "open.zarr", "u")); err == nil {
		t.Error("create through a read-only dataset wrote")
	}
	decl := lineRef(cfg, lineOf(t, src, `dataset "open"`))
	fails(t, elsewhere, []string{"cat", "-c", cfg, "open", "--path", "s"},
		`no array or group at /s in dataset "open" (`+decl+`) at `+filepath.Join(dir, "conf", "open.zarr"), "did you mean --path t?")
	fails(t, elsewhere, []string{"cat", "-c", cfg, "open", "t"}, "did you mean: zarrgw cat -c "+cfg+" open --path t")
}
