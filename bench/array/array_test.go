// Package array benchmarks whole-array reads and writes on the filesystem
// store against the codec-only limit (the same chunk bytes decoded from
// memory with the same parallelism). bench/run.sh runs it and compares
// with python3-zarr reading the same data.
//
// The dataset is 512 MiB of uint16 in 1 MiB chunks, written once per
// variant under $ZARRGW_BENCH_DIR (default: the system temp directory).
package array

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"

	"github.com/zarrgw/zarrgw/core/array"
	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/dtype"
	"github.com/zarrgw/zarrgw/core/hierarchy"
	"github.com/zarrgw/zarrgw/core/meta"
	"github.com/zarrgw/zarrgw/core/ndarray"
	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/host/runtime/registry"
	"github.com/zarrgw/zarrgw/plugins/stores/fsstore"
)

const (
	rows, cols    = 16384, 16384 // 256 Mi elements x 2 bytes = 512 MiB
	chunkRows     = 32           // 32 x 16384 x 2 bytes = 1 MiB chunks
	totalBytes    = rows * cols * 2
	variantRaw    = "raw"
	variantZstd   = "zstd"
	benchDirEnv   = "ZARRGW_BENCH_DIR"
	readyMarkFile = ".bench-ready"
)

var variants = map[string][]meta.Extension{
	variantRaw:  {{Name: "bytes", Configuration: json.RawMessage(`{"endian":"little"}`), MustUnderstand: true}},
	variantZstd: {{Name: "bytes", Configuration: json.RawMessage(`{"endian":"little"}`), MustUnderstand: true}, {Name: "zstd", Configuration: json.RawMessage(`{"level":0}`), MustUnderstand: true}},
}

func options() array.Options { return array.Options{Codecs: registry.Codecs()} }

// dataset returns the (v2, so python3-zarr 2.13 reads it too) dataset dir
// of a variant, writing it first if needed.
func dataset(b *testing.B, variant string) string {
	b.Helper()
	base := os.Getenv(benchDirEnv)
	if base == "" {
		base = os.TempDir()
	}
	dir := filepath.Join(base, "zarrgw-bench-"+variant+".zarr")
	if _, err := os.Stat(filepath.Join(dir, readyMarkFile)); err == nil {
		return dir
	}
	os.RemoveAll(dir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	s, err := fsstore.New(dir)
	if err != nil {
		b.Fatal(err)
	}
	a, err := hierarchy.CreateArray(context.Background(), s, "", arrayMeta(variant), options())
	if err != nil {
		b.Fatal(err)
	}
	if err := a.WriteAll(context.Background(), sampleData()); err != nil {
		b.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, readyMarkFile), nil, 0o644)
	return dir
}

func arrayMeta(variant string) *meta.ArrayMeta {
	return &meta.ArrayMeta{
		Format: meta.V2, Shape: []int{rows, cols}, ChunkShape: []int{chunkRows, cols},
		DataType: dtype.Named("uint16"), FillValue: []byte{0, 0},
		ChunkKey: meta.ChunkKeyEncoding{Name: "v2", Separator: "."},
		Codecs:   variants[variant], Attributes: json.RawMessage("{}"),
	}
}

// sampleData is smooth, partly compressible data (like a detector image).
func sampleData() *ndarray.Array {
	a := ndarray.New(dtype.Named("uint16"), []int{rows, cols})
	for i := 0; i < rows*cols; i++ {
		r, c := i/cols, i%cols
		v := uint16((r*3 + c/7) ^ (c & 0x0f))
		binary.LittleEndian.PutUint16(a.Data[2*i:], v)
	}
	return a
}

func openBench(b *testing.B, variant string) *array.Array {
	dir := dataset(b, variant)
	s, err := fsstore.New(dir)
	if err != nil {
		b.Fatal(err)
	}
	a, err := hierarchy.OpenArray(context.Background(), s, "", options())
	if err != nil {
		b.Fatal(err)
	}
	return a
}

func benchReadAll(b *testing.B, variant string) {
	a := openBench(b, variant)
	b.SetBytes(totalBytes)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := a.ReadAll(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
}

// benchCodecOnly decodes the same stored chunks from memory, with the same
// parallelism, into one output buffer, each the fastest way the codecs
// allow: stored element bytes are copied straight into the output, and
// compressed chunks are decompressed into a per-worker buffer and copied
// (decompressing into cold output memory is slower). That is everything a
// read does except the store.
func benchCodecOnly(b *testing.B, variant string) {
	a := openBench(b, variant)
	ctx := context.Background()
	n := rows / chunkRows
	chunks := make([][]byte, n)
	for i := range chunks {
		v, err := fsGet(b, variant, a.ChunkKey([]int{i, 0}))
		if err != nil {
			b.Fatal(err)
		}
		chunks[i] = v
	}
	pipe := a.Pipeline()
	if ok, _ := pipe.Direct(); !ok {
		b.Fatal("the benchmark's codecs cannot decode into a buffer")
	}
	workers := 2 * runtime.GOMAXPROCS(0)
	b.SetBytes(totalBytes)
	b.ResetTimer()
	for it := 0; it < b.N; it++ {
		out := make([]byte, totalBytes)
		if err := decodeAll(ctx, pipe, chunks, out, workers); err != nil {
			b.Fatal(err)
		}
	}
}

func decodeAll(ctx context.Context, pipe *codec.Pipeline, chunks [][]byte, out []byte, workers int) error {
	_, raw := pipe.Direct()
	size := len(out) / len(chunks)
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	next := make(chan int)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			scratch := make([]byte, size)
			for i := range next {
				dst := out[i*size : (i+1)*size]
				if raw {
					scratch = dst
				}
				if err := pipe.DecodeInto(ctx, chunks[i], scratch); err != nil {
					errs <- err
					return
				}
				if !raw {
					copy(dst, scratch)
				}
			}
		}()
	}
	for i := range chunks {
		next <- i
	}
	close(next)
	wg.Wait()
	select {
	case err := <-errs:
		return err
	default:
		return nil
	}
}

func fsGet(b *testing.B, variant, key string) ([]byte, error) {
	s, err := fsstore.New(dataset(b, variant))
	if err != nil {
		return nil, err
	}
	v, err := s.Get(context.Background(), key, store.ByteRange{})
	return v.Data, err
}

func benchWriteAll(b *testing.B, variant string) {
	data := sampleData()
	dir := b.TempDir()
	s, err := fsstore.New(dir)
	if err != nil {
		b.Fatal(err)
	}
	a, err := hierarchy.CreateArray(context.Background(), s, "", arrayMeta(variant), options())
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(totalBytes)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := a.WriteAll(context.Background(), data); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkReadAllRaw(b *testing.B)    { benchReadAll(b, variantRaw) }
func BenchmarkReadAllZstd(b *testing.B)   { benchReadAll(b, variantZstd) }
func BenchmarkCodecOnlyRaw(b *testing.B)  { benchCodecOnly(b, variantRaw) }
func BenchmarkCodecOnlyZstd(b *testing.B) { benchCodecOnly(b, variantZstd) }
func BenchmarkWriteAllRaw(b *testing.B)   { benchWriteAll(b, variantRaw) }
func BenchmarkWriteAllZstd(b *testing.B)  { benchWriteAll(b, variantZstd) }

// TestDatasetMeta keeps the benchmark's metadata valid without running the
// benchmark itself.
func TestDatasetMeta(t *testing.T) {
	for name := range variants {
		m := arrayMeta(name)
		zarray, _, err := m.MarshalV2()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(zarray) == 0 {
			t.Fatal(fmt.Sprintf("%s: empty .zarray", name))
		}
	}
}
