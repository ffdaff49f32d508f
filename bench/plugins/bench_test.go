package plugins

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"io"
	"log/slog"
	"math"
	"sync"
	"testing"

	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/dtype"
	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/host/runtime/launcher"
	"github.com/zarrgw/zarrgw/host/runtime/registry"
	"github.com/zarrgw/zarrgw/plugins/stores/fsstore"
)

// outOfProcess returns the bundled codecs and fs store served by zarrgw
// plugin processes, ended when the benchmark ends.
func outOfProcess(b *testing.B) (codec.Resolver, func(string) (store.Store, error)) {
	b.Helper()
	l := launcher.New(launcher.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	b.Cleanup(func() { l.Close() })
	parts, err := registry.Bundled().OutOfProcess(l, zarrgwBin)
	if err != nil {
		b.Fatal(err)
	}
	codecs, openFS := parts.Codecs(), fsOpener(parts)
	return codecs, openFS
}

// field is n bytes of a noisy float32 field kept to 7 mantissa bits, like
// gridded model output after bit rounding; zstd level 3 compresses it to
// about a third.
func field(n int) []byte {
	out := make([]byte, n)
	x := uint32(2463534242)
	for i := 0; i+4 <= n; i += 4 {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		v := float32(math.Sin(float64(i)/40960)*40+273.15) + float32(x%1000)/100
		binary.LittleEndian.PutUint32(out[i:], math.Float32bits(v)&^0xffff)
	}
	return out
}

type zstdCase struct {
	spec    codec.Spec
	encoded []byte
}

func zstdChunk(b *testing.B, size int) zstdCase {
	raw := field(size)
	spec := codec.Spec{DataType: dtype.Named("float32"), Shape: []int{size / 4}, DecodedSize: int64(size)}
	c, err := registry.Codecs().Codec(context.Background(), "zstd", json.RawMessage(`{"level":3,"checksum":false}`))
	if err != nil {
		b.Fatal(err)
	}
	enc, err := c.(codec.BytesBytes).EncodeBytes(context.Background(), spec, raw)
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("%d byte chunk compresses to %d", size, len(enc))
	return zstdCase{spec: spec, encoded: enc}
}

func zstdCodec(b *testing.B, r codec.Resolver) codec.BytesBytes {
	c, err := r.Codec(context.Background(), "zstd", json.RawMessage(`{"level":3,"checksum":false}`))
	if err != nil {
		b.Fatal(err)
	}
	return c.(codec.BytesBytes)
}

// BenchmarkDecodeZstd1MiB decodes one 1 MiB chunk at a time.
func BenchmarkDecodeZstd1MiB(b *testing.B) {
	zc := zstdChunk(b, 1<<20)
	run := func(b *testing.B, c codec.BytesBytes) {
		b.SetBytes(1 << 20)
		for b.Loop() {
			if _, err := c.DecodeBytes(context.Background(), zc.spec, zc.encoded); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.Run("in-process", func(b *testing.B) { run(b, zstdCodec(b, registry.Codecs())) })
	b.Run("out-of-process", func(b *testing.B) {
		r, _ := outOfProcess(b)
		run(b, zstdCodec(b, r))
	})
}

// BenchmarkDecodeZstd1MiBInto decodes into a reused buffer, as array reads
// do (a warm scratch buffer per worker): out of process the output goes
// from shared memory straight into it.
func BenchmarkDecodeZstd1MiBInto(b *testing.B) {
	zc := zstdChunk(b, 1<<20)
	run := func(b *testing.B, c codec.BytesBytes) {
		into := c.(codec.DecoderInto)
		dst := make([]byte, 1<<20)
		b.SetBytes(1 << 20)
		for b.Loop() {
			if err := into.DecodeBytesInto(context.Background(), zc.spec, zc.encoded, dst); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.Run("in-process", func(b *testing.B) { run(b, zstdCodec(b, registry.Codecs())) })
	b.Run("out-of-process", func(b *testing.B) {
		r, _ := outOfProcess(b)
		run(b, zstdCodec(b, r))
	})
}

// BenchmarkDecodeZstd64KiB decodes 64 KiB chunks with 16 in flight, as an
// array read does: out of process they travel in shared batches.
func BenchmarkDecodeZstd64KiB(b *testing.B) {
	zc := zstdChunk(b, 64<<10)
	const inFlight = 16
	run := func(b *testing.B, c codec.BytesBytes) {
		b.SetBytes(64 << 10)
		work := make(chan struct{})
		var wg sync.WaitGroup
		for range inFlight {
			wg.Go(func() {
				for range work {
					if _, err := c.DecodeBytes(context.Background(), zc.spec, zc.encoded); err != nil {
						b.Error(err)
					}
				}
			})
		}
		for b.Loop() {
			work <- struct{}{}
		}
		close(work)
		wg.Wait()
	}
	b.Run("in-process", func(b *testing.B) { run(b, zstdCodec(b, registry.Codecs())) })
	b.Run("out-of-process", func(b *testing.B) {
		r, _ := outOfProcess(b)
		run(b, zstdCodec(b, r))
	})
}

// BenchmarkStoreGet1MiB reads one 1 MiB value of an fs store at a time:
// "new" into a buffer Get allocates, "into" into the caller's reused
// buffer (store.GetInto, what array reads use).
func BenchmarkStoreGet1MiB(b *testing.B) {
	value := field(1 << 20)
	run := func(b *testing.B, s store.Store) {
		defer s.Close()
		ctx := context.Background()
		if _, err := s.Set(ctx, "c/0/0", value, store.Condition{}); err != nil {
			b.Fatal(err)
		}
		b.Run("new", func(b *testing.B) {
			b.SetBytes(int64(len(value)))
			for b.Loop() {
				if _, err := s.Get(ctx, "c/0/0", store.ByteRange{}); err != nil {
					b.Fatal(err)
				}
			}
		})
		dst := make([]byte, len(value))
		b.Run("into", func(b *testing.B) {
			b.SetBytes(int64(len(value)))
			for b.Loop() {
				if ok, err := store.GetInto(ctx, s, "c/0/0", dst); err != nil || !ok {
					b.Fatal(ok, err)
				}
			}
		})
	}
	b.Run("in-process", func(b *testing.B) {
		s, err := fsstore.New(b.TempDir())
		if err != nil {
			b.Fatal(err)
		}
		run(b, s)
	})
	b.Run("out-of-process", func(b *testing.B) {
		_, openFS := outOfProcess(b)
		s, err := openFS(b.TempDir())
		if err != nil {
			b.Fatal(err)
		}
		run(b, s)
	})
}

// fsOpener opens fs stores through parts (in a plugin, out of process).
func fsOpener(parts *registry.Parts) func(dir string) (store.Store, error) {
	return func(dir string) (store.Store, error) {
		return parts.OpenStore(context.Background(), fsstore.Name, fsstore.Config(dir))
	}
}
