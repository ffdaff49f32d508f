package badinput

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/zarrgw/zarrgw/core/array"
	"github.com/zarrgw/zarrgw/core/hierarchy"
	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/plugins/stores/fsstore"
	"github.com/zarrgw/zarrgw/tests/support/fixtures"
)

// fuzzArrays are fixture arrays covering the decode paths: compressors,
// checksums, filters, variable-length strings and blosc.
var fuzzArrays = []struct{ dir, chunk string }{
	{"zarrita-js/v2/data.zarr/1d.contiguous.zstd.i2", "0"},
	{"zarrita-js/v2/data.zarr/1d.contiguous.zlib.i2", "0"},
	{"zarrita-js/v2/data.zarr/1d.contiguous.lz4.i2", "0"},
	{"zarrita-js/v2/data.zarr/1d.contiguous.blosc.i2", "0"},
	{"zarrita-js/v2/data.zarr/1d.contiguous.delta.shuffle.i2", "0"},
	{"zarrita-js/v2/data.zarr/3d.chunked.O", "0.0.0"},
	{"zarrita-js/v2/data.zarr/1d.contiguous.json2.O", "0"},
	{"zarrita-js/v3/data.zarr/1d.contiguous.gzip.i2", "c/0"},
	{"zarrita-js/v3/data.zarr/1d.contiguous.string.vlen", "c/0"},
	{"zarrs/v3_zarr_python/array_fletcher32.zarr", "c/0/0"},
}

// FuzzDecodeChunk stores arbitrary bytes as a chunk of real arrays and
// reads it back: the read must fail cleanly or succeed, never panic, and
// never report a present chunk as missing.
func FuzzDecodeChunk(f *testing.F) {
	dir := fixtures.Dir(f)
	var arrays []*array.Array
	var keys []string
	for _, fa := range fuzzArrays {
		d := filepath.Join(dir, fa.dir)
		chunk, err := os.ReadFile(filepath.Join(d, filepath.FromSlash(fa.chunk)))
		if err != nil {
			f.Fatalf("seed %s: %v", fa.dir, err)
		}
		arrays, keys = append(arrays, openFixture(f, d)), append(keys, fa.chunk)
		f.Add(uint8(len(arrays)-1), chunk)
	}
	f.Fuzz(func(t *testing.T, which uint8, data []byte) {
		i := int(which) % len(arrays)
		a := arrays[i]
		st := store.NewMemory()
		if _, err := st.Set(context.Background(), keys[i], data, store.Condition{}); err != nil {
			t.Fatal(err)
		}
		b, err := array.New(context.Background(), st, "", a.Meta(), opts())
		if err != nil {
			t.Fatal(err)
		}
		_, err = b.ReadAll(context.Background())
		if errors.Is(err, store.ErrNotFound) {
			t.Fatalf("present chunk reported missing: %v", err)
		}
	})
}

// openFixture opens the fixture array rooted at dir.
func openFixture(f *testing.F, dir string) *array.Array {
	s, err := fsstore.New(dir)
	if err != nil {
		f.Fatal(err)
	}
	a, err := hierarchy.OpenArray(context.Background(), s, "", opts())
	if err != nil {
		f.Fatalf("%s: %v", dir, err)
	}
	return a
}
