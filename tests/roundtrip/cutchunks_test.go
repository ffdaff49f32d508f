package roundtrip

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zarrgw/zarrgw/core/array"
	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/dtype"
	"github.com/zarrgw/zarrgw/core/grid"
	"github.com/zarrgw/zarrgw/core/hierarchy"
	"github.com/zarrgw/zarrgw/core/meta"
	"github.com/zarrgw/zarrgw/core/ndarray"
	"github.com/zarrgw/zarrgw/host/runtime/registry"
	"github.com/zarrgw/zarrgw/plugins/stores/fsstore"
)

// cutValue is element i (C order) of the arrays below.
func cutValue(i int) uint16 { return uint16(i*7 + i/513) }

// Chunks taller than a slab, read from files by the bundled codecs: raw
// chunks a slab's rows at a time, zstd chunks (larger than their window,
// as streams are worth it) as decoding streams, sharded chunks through
// resident runs of inner chunks. The elements are the formula's, and a
// zstd chunk cut short on disk fails the read naming its key.
func TestStreamCutChunksFromFiles(t *testing.T) {
	shape, chunks := []int{32, 256, 512}, []int{32, 256, 256}
	zstd := `{"name":"zstd","configuration":{"level":3,"checksum":false}}`
	bytesCodec := `{"name":"bytes","configuration":{"endian":"little"}}`
	for _, c := range []struct {
		name, codecs string
	}{
		{"raw", "[" + bytesCodec + "]"},
		{"zstd", "[" + bytesCodec + "," + zstd + "]"},
		{"sharded", `[{"name":"sharding_indexed","configuration":{"chunk_shape":[32,128,128],"codecs":[` + bytesCodec + "," + zstd + `],"index_codecs":[` + bytesCodec + `,{"name":"crc32c"}]}}]`},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx := t.Context()
			dir := t.TempDir()
			s, err := fsstore.New(dir)
			if err != nil {
				t.Fatal(err)
			}
			var exts []meta.Extension
			if err := json.Unmarshal([]byte(c.codecs), &exts); err != nil {
				t.Fatal(err)
			}
			m := &meta.ArrayMeta{Format: meta.V3, Shape: shape, ChunkShape: chunks, DataType: dtype.Named("uint16"),
				FillValue: []byte{0, 0}, Codecs: exts, ChunkKey: meta.ChunkKeyEncoding{Name: "default", Separator: "/"},
				Attributes: json.RawMessage("{}")}
			a, err := hierarchy.CreateArray(ctx, s, "", m, array.Options{Codecs: registry.Codecs()})
			if err != nil {
				t.Fatal(err)
			}
			all := ndarray.New(m.DataType, shape)
			for i := range ndarray.NumElements(shape) {
				binary.LittleEndian.PutUint16(all.Data[2*i:], cutValue(i))
			}
			if err := a.Write(ctx, grid.All(shape), all); err != nil {
				t.Fatal(err)
			}
			// half the budget holds 28 of a chunk's 32 rows; the streams
			// of a slab (two zstd chunks: about their 4MiB window each;
			// or two runs of inner chunks of 4MiB) fit the rest
			const budget = 56 * 256 * 512 * 2
			got := streamBytes(t, a, budget)
			if string(got) != string(all.Data) {
				t.Fatal("streamed elements differ from the formula")
			}
			key := filepath.Join(dir, "c", "0", "0", "1")
			stored, err := os.ReadFile(key)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(key, stored[:len(stored)*3/4], 0o644); err != nil {
				t.Fatal(err)
			}
			err = a.Stream(ctx, grid.All(shape), array.StreamOptions{MemoryBudget: budget}, func(*ndarray.Array) error { return nil })
			if !errors.Is(err, codec.ErrCorrupt) && c.name != "sharded" || err == nil || !strings.Contains(err.Error(), "c/0/0/1") {
				t.Fatalf("a chunk cut short: got %v, want an error naming c/0/0/1", err)
			}
		})
	}
}

func streamBytes(t *testing.T, a *array.Array, budget int64) []byte {
	t.Helper()
	var got []byte
	err := a.Stream(context.Background(), grid.All(a.Shape()), array.StreamOptions{MemoryBudget: budget}, func(s *ndarray.Array) error {
		got = append(got, s.Data...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}
