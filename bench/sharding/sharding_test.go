// Package sharding benchmarks sharded against unsharded arrays holding the
// same data on the filesystem store: whole-array reads, and reads of one
// (inner) chunk at a time. Targets: sharded read-all within 1.25x of
// unsharded, inner-chunk-by-inner-chunk within 1.5x of chunk-by-chunk.
//
// The datasets (32 MiB of uint16, chunks / inner chunks of 256 x 256 =
// 128 KiB, shards of 1024 x 1024) are written once under
// $ZARRGW_BENCH_DIR (default: the system temp directory).
//
//	go test -run '^$' -bench . ./bench/sharding/
package sharding

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/zarrgw/zarrgw/core/array"
	"github.com/zarrgw/zarrgw/core/dtype"
	"github.com/zarrgw/zarrgw/core/grid"
	"github.com/zarrgw/zarrgw/core/hierarchy"
	"github.com/zarrgw/zarrgw/core/meta"
	"github.com/zarrgw/zarrgw/core/ndarray"
	"github.com/zarrgw/zarrgw/host/runtime/registry"
	"github.com/zarrgw/zarrgw/plugins/stores/fsstore"
)

const (
	side       = 4096
	chunk      = 256
	shardSide  = 1024
	totalBytes = side * side * 2
	readyMark  = ".bench-ready"
)

var ctx = context.Background()

func options() array.Options {
	return array.Options{Codecs: registry.Codecs(), Transformers: registry.Transformers()}
}

func ext(name, config string) meta.Extension {
	return meta.Extension{Name: name, Configuration: json.RawMessage(config), MustUnderstand: true}
}

// layouts are the arrays compared: the same data, chunked three ways.
var layouts = map[string]func() *meta.ArrayMeta{
	"unsharded": func() *meta.ArrayMeta {
		return arrayMeta([]int{chunk, chunk}, []meta.Extension{ext("bytes", `{"endian":"little"}`)}, nil)
	},
	"sharded": func() *meta.ArrayMeta {
		cfg := fmt.Sprintf(`{"chunk_shape":[%d,%d],"codecs":[{"name":"bytes","configuration":{"endian":"little"}}],
			"index_codecs":[{"name":"bytes","configuration":{"endian":"little"}},{"name":"crc32c"}],"index_location":"end"}`, chunk, chunk)
		return arrayMeta([]int{shardSide, shardSide}, []meta.Extension{ext("sharding_indexed", cfg)}, nil)
	},
	"transformer": func() *meta.ArrayMeta {
		per := shardSide / chunk
		return arrayMeta([]int{chunk, chunk}, []meta.Extension{ext("bytes", `{"endian":"little"}`)},
			[]meta.Extension{ext("sharding", fmt.Sprintf(`{"chunks_per_shard":[%d,%d]}`, per, per))})
	},
}

func arrayMeta(chunks []int, codecs, transformers []meta.Extension) *meta.ArrayMeta {
	return &meta.ArrayMeta{
		Format: meta.V3, Shape: []int{side, side}, ChunkShape: chunks, DataType: dtype.Named("uint16"),
		FillValue: []byte{0, 0}, ChunkKey: meta.ChunkKeyEncoding{Name: "default", Separator: "/"},
		Codecs: codecs, StorageTransformers: transformers, Attributes: json.RawMessage("{}"),
	}
}

// open returns the array of a layout, writing the dataset first if needed.
func open(b *testing.B, layout string) *array.Array {
	b.Helper()
	base := os.Getenv("ZARRGW_BENCH_DIR")
	if base == "" {
		base = os.TempDir()
	}
	dir := filepath.Join(base, "zarrgw-bench-sharding-"+layout)
	if _, err := os.Stat(filepath.Join(dir, readyMark)); err != nil {
		write(b, dir, layouts[layout]())
	}
	s, err := fsstore.New(dir)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	a, err := hierarchy.OpenArray(ctx, s, "", options())
	if err != nil {
		b.Fatal(err)
	}
	return a
}

func write(b *testing.B, dir string, m *meta.ArrayMeta) {
	b.Helper()
	if err := os.RemoveAll(dir); err != nil {
		b.Fatal(err)
	}
	s, err := fsstore.New(dir, fsstore.WithDirSync(false))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	a, err := hierarchy.CreateArray(ctx, s, "", m, options())
	if err != nil {
		b.Fatal(err)
	}
	data := ndarray.New(m.DataType, m.Shape)
	for i := range side * side {
		binary.LittleEndian.PutUint16(data.Data[2*i:], uint16(i*7+i/side))
	}
	// Whole shards at a time, so the transformer's shards are each
	// written by one writer.
	for r := 0; r < side; r += shardSide {
		sel := grid.Box([]int{r, 0}, []int{shardSide, side})
		part := ndarray.New(m.DataType, []int{shardSide, side})
		copy(part.Data, data.Data[r*side*2:(r+shardSide)*side*2])
		if err := a.Write(ctx, sel, part); err != nil {
			b.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, readyMark), nil, 0o644); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkReadAll reads the whole array.
func BenchmarkReadAll(b *testing.B) {
	for _, layout := range []string{"unsharded", "sharded", "transformer"} {
		b.Run(layout, func(b *testing.B) {
			a := open(b, layout)
			b.SetBytes(totalBytes)
			b.ResetTimer()
			for range b.N {
				if _, err := a.ReadAll(ctx); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkChunkByChunk reads the array one (inner) chunk at a time, in
// C order, one read after the other.
func BenchmarkChunkByChunk(b *testing.B) {
	for _, layout := range []string{"unsharded", "sharded", "transformer"} {
		b.Run(layout, func(b *testing.B) {
			a := open(b, layout)
			b.SetBytes(totalBytes)
			b.ResetTimer()
			for range b.N {
				for r := 0; r < side; r += chunk {
					for c := 0; c < side; c += chunk {
						if _, err := a.Read(ctx, grid.Box([]int{r, c}, []int{chunk, chunk})); err != nil {
							b.Fatal(err)
						}
					}
				}
			}
		})
	}
}

// BenchmarkWriteAll writes the whole array into a new directory, whole
// shards at a time (see write).
func BenchmarkWriteAll(b *testing.B) {
	for _, layout := range []string{"unsharded", "sharded", "transformer"} {
		b.Run(layout, func(b *testing.B) {
			b.SetBytes(totalBytes)
			for i := range b.N {
				write(b, filepath.Join(b.TempDir(), fmt.Sprint(i)), layouts[layout]())
			}
		})
	}
}
