package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// create makes the directory it is given, parents included, as
// zarr.open(mode="w") does, whether named as a path or a file:// URL;
// the array then reads back as fill values. A create refused for its
// arguments makes nothing, and the other commands never make a
// directory.
func TestCreateMakesItsLocation(t *testing.T) {
	dir := t.TempDir()
	out := must(t, dir, "create", "a/b/mydata.zarr", "--path", "t2m", "--shape", "720,1440", "--chunks", "90,180", "--dtype", "float32")
	if !strings.Contains(out, "created t2m") {
		t.Errorf("create printed %q", out)
	}
	if _, err := os.Stat(filepath.Join(dir, "a/b/mydata.zarr/t2m/zarr.json")); err != nil {
		t.Fatal(err)
	}
	got := must(t, dir, "cat", "a/b/mydata.zarr", "--path", "t2m", "--slice", "0:2,0:2")
	var doc struct {
		Shape []int
		Data  []float64
	}
	if err := json.Unmarshal([]byte(got), &doc); err != nil || len(doc.Data) != 4 || doc.Data[0] != 0 {
		t.Fatalf("cat printed %q (%v)", got, err)
	}

	url := "file://" + filepath.Join(dir, "c", "d.zarr")
	must(t, dir, "create", url, "--path", "g/x", "--shape", "4", "--dtype", "int16")
	if _, err := os.Stat(filepath.Join(dir, "c/d.zarr/g/x/zarr.json")); err != nil {
		t.Fatal(err)
	}

	fails(t, dir, []string{"create", "e/f.zarr", "--path", "t", "--shape", "4", "--dtype", "f4"}, "--dtype")
	fails(t, dir, []string{"create", "e/f.zarr", "--path", "t", "--shape", "four", "--dtype", "float32"}, "--shape")
	fails(t, dir, []string{"cat", "e/f.zarr", "--path", "t"}, "e/f.zarr")
	fails(t, dir, []string{"inspect", "e/g.zarr"}, "e/g.zarr")
	if _, err := os.Stat(filepath.Join(dir, "e")); err == nil {
		t.Error("a refused create, or a read, made a directory")
	}
}

// An fs store's root that does not exist is an error of validate, and of
// every command that loads the configuration, naming the line; nothing
// is created. With create_root = true it is created, parents included,
// when the store is first used. A root written relative is taken
// relative to the configuration file's directory, wherever zarrgw runs.
func TestStoreRoots(t *testing.T) {
	dir := t.TempDir()
	src := `store "fs" "local" {
  root = "./data"
}

store "fs" "made" {
  root        = "made/below/here"
  create_root = true
}

dataset "kept" {
  store  = store.fs.local
  prefix = "kept.zarr"
}

dataset "fresh" {
  store  = store.fs.made
  prefix = "fresh.zarr"
}
`
	cfg := filepath.Join(dir, "conf", "zarrgw.hcl")
	write(t, cfg, src)
	elsewhere := t.TempDir() // zarrgw runs here, not beside the configuration
	line := lineOf(t, src, `root = "./data"`)
	for _, args := range [][]string{
		{"validate", "-c", cfg},
		{"cat", "-c", cfg, "kept", "--path", "t"},
		{"create", "-c", cfg, "fresh", "--path", "t", "--shape", "4", "--dtype", "uint8"},
	} {
		_, stderr, code := run(t, elsewhere, args...)
		for _, want := range []string{"Store root does not exist", "on " + cfg + " line " + strconv.Itoa(line), "create_root = true",
			filepath.Join(dir, "conf", "data")} {
			if code != 1 || !strings.Contains(stderr, want) {
				t.Errorf("%v: exit %d, stderr lacks %q:\n%s", args[0], code, want, stderr)
			}
		}
	}
	for _, d := range []string{filepath.Join(dir, "conf", "data"), filepath.Join(dir, "conf", "made"), filepath.Join(elsewhere, "data")} {
		if _, err := os.Stat(d); err == nil {
			t.Errorf("%s was created", d)
		}
	}

	if err := os.Mkdir(filepath.Join(dir, "conf", "data"), 0o755); err != nil {
		t.Fatal(err)
	}
	must(t, elsewhere, "validate", "-c", cfg)
	must(t, elsewhere, "create", "-c", cfg, "fresh", "--path", "t", "--shape", "4", "--dtype", "uint8")
	if _, err := os.Stat(filepath.Join(dir, "conf", "made", "below", "here", "fresh.zarr", "t", "zarr.json")); err != nil {
		t.Errorf("create_root = true: %v", err)
	}
	must(t, elsewhere, "create", "-c", cfg, "kept", "--path", "t", "--shape", "4", "--dtype", "uint8")
	if _, err := os.Stat(filepath.Join(dir, "conf", "data", "kept.zarr", "t", "zarr.json")); err != nil {
		t.Errorf("a root written ./data is not the configuration's directory's data: %v", err)
	}
}

// create --dimension-names and --attrs write v3's dimension_names and the
// attributes; cp --to-format 2 turns the names into xarray's
// _ARRAY_DIMENSIONS. A count of names that does not match the rank, or
// attributes that are not a JSON object, are refused before anything is
// made.
func TestCreateDimensionNamesAndAttrs(t *testing.T) {
	dir := t.TempDir()
	must(t, dir, "create", "d.zarr", "--path", "t2m", "--shape", "4,6", "--chunks", "2,3", "--dtype", "float32",
		"--dimension-names", "time,lat", "--attrs", `{"units":"K","long_name":"2 m temperature"}`)
	var v3 struct {
		DimensionNames []string          `json:"dimension_names"`
		Attributes     map[string]string `json:"attributes"`
	}
	readJSON(t, filepath.Join(dir, "d.zarr/t2m/zarr.json"), &v3)
	if strings.Join(v3.DimensionNames, ",") != "time,lat" || v3.Attributes["units"] != "K" || v3.Attributes["long_name"] != "2 m temperature" {
		t.Errorf("zarr.json: dimension_names %q, attributes %v", v3.DimensionNames, v3.Attributes)
	}
	must(t, dir, "cp", "-q", "d.zarr", "v2.zarr", "--to-format", "2")
	var zattrs struct {
		Dims  []string `json:"_ARRAY_DIMENSIONS"`
		Units string   `json:"units"`
	}
	readJSON(t, filepath.Join(dir, "v2.zarr/t2m/.zattrs"), &zattrs)
	if strings.Join(zattrs.Dims, ",") != "time,lat" || zattrs.Units != "K" {
		t.Errorf(".zattrs after cp --to-format 2: %+v", zattrs)
	}
	fails(t, dir, []string{"create", "e.zarr", "--path", "t", "--shape", "4", "--dtype", "int8", "--dimension-names", "a,b"}, "--dimension-names", "2 names for 1 dimensions")
	fails(t, dir, []string{"create", "e.zarr", "--path", "t", "--shape", "4", "--dtype", "int8", "--attrs", "[1]"}, "--attrs", "JSON object")
	if _, err := os.Stat(filepath.Join(dir, "e.zarr")); err == nil {
		t.Error("a refused create made its directory")
	}
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v\n%s", path, err, b)
	}
}
