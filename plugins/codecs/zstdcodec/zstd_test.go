package zstdcodec

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/zarrgw/zarrgw/tests/support/fixtures/fixturecheck"

	"github.com/klauspost/compress/zstd"

	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/codec/codectest"
	"github.com/zarrgw/zarrgw/core/dtype"
)

var newCodec = codectest.Builder[codec.BytesBytes](New)

func TestConfiguration(t *testing.T) {
	codectest.CheckConfigurations(t, New, map[string]string{
		``:                             `{"level":0,"checksum":false}`,
		`{"level":5,"checksum":false}`: `{"level":5,"checksum":false}`,
		`{"id":"zstd","level":-7,"checksum":true}`: `{"level":-7,"checksum":true}`,
	})
	codectest.CheckRefused(t, New, `{"level":23}`, `{"level":-131073}`, `{"checksum":"yes"}`)
}

// Frame header descriptor byte (RFC 8878 3.1.1.1.1): bit 2 is the content
// checksum flag, bits 6-7 the content size field size (with single
// segment, bit 5, a size is always present).
func TestFrameFlags(t *testing.T) {
	for _, checksum := range []bool{false, true} {
		cfg := `{"checksum":false}`
		if checksum {
			cfg = `{"checksum":true}`
		}
		enc, err := newCodec(t, cfg).EncodeBytes(t.Context(), codectest.BytesSpec(1000, 1000), bytes.Repeat([]byte("ab"), 500))
		if err != nil {
			t.Fatal(err)
		}
		if binary.LittleEndian.Uint32(enc) != 0xFD2FB528 {
			t.Fatalf("magic %x", enc[:4])
		}
		fhd := enc[4]
		if got := fhd&4 != 0; got != checksum {
			t.Errorf("checksum flag %v, want %v", got, checksum)
		}
		var h zstd.Header
		if err := h.Decode(enc); err != nil || !h.HasFCS || h.FrameContentSize != 1000 {
			t.Errorf("content size not recorded: %+v %v", h, err)
		}
	}
}

func TestRoundTripAndCorruption(t *testing.T) {
	codectest.CheckCompressor(t, newCodec(t, `{"level":0}`), false)
	codectest.CheckCompressor(t, newCodec(t, `{"level":19,"checksum":true}`), true)
	codectest.CheckCompressor(t, newCodec(t, `{"level":-5}`), false)
}

// Concatenated frames, and a frame without a content size (as streaming
// encoders write), must decode.
func TestFramesWithoutSize(t *testing.T) {
	c := newCodec(t, "")
	a, _ := c.EncodeBytes(t.Context(), codectest.BytesSpec(3, 3), []byte("abc"))
	var stream bytes.Buffer
	w, _ := zstd.NewWriter(&stream)
	w.Write(bytes.Repeat([]byte("xyz"), 100000))
	w.Close()
	var h zstd.Header
	if err := h.Decode(stream.Bytes()); err != nil || h.HasFCS {
		t.Fatalf("test frame has a content size: %+v %v", h, err)
	}
	in := append(bytes.Clone(a), stream.Bytes()...)
	want := append([]byte("abc"), bytes.Repeat([]byte("xyz"), 100000)...)
	n := int64(len(want))
	for _, spec := range []codec.Spec{codectest.BytesSpec(n, n), codectest.BytesSpec(-1, n), codectest.BytesSpec(-1, 1<<30), codectest.BytesSpec(-1, 0)} {
		out, err := c.DecodeBytes(t.Context(), spec, in)
		if err != nil || !bytes.Equal(out, want) {
			t.Fatalf("spec %+v: %v (%d bytes)", spec, err, len(out))
		}
	}
	_, err := c.DecodeBytes(t.Context(), codectest.BytesSpec(-1, n-1), in)
	codectest.MustCorrupt(t, err, "one byte over the bound")
}

// 100 MB of zeros: once as a frame that declares its size (refused from
// the header) and once streamed without a size (stopped while decoding).
func TestBomb(t *testing.T) {
	c := newCodec(t, "")
	var sized bytes.Buffer
	w, _ := zstd.NewWriter(&sized)
	w.ResetContentSize(&sized, 100<<20)
	codectest.WriteZeros(t, w, 100<<20)
	w.Close()
	var unsized bytes.Buffer
	w.Reset(&unsized)
	codectest.WriteZeros(t, w, 100<<20)
	w.Close()
	var h zstd.Header
	if h.Decode(sized.Bytes()); !h.HasFCS {
		t.Fatal("sized bomb has no content size")
	}
	if h.Decode(unsized.Bytes()); h.HasFCS {
		t.Fatal("unsized bomb has a content size")
	}
	codectest.CheckBomb(t, c, sized.Bytes(), 1<<20)
	codectest.CheckBomb(t, c, unsized.Bytes(), 1<<20)
}

func TestEmptyInput(t *testing.T) {
	_, err := newCodec(t, "").DecodeBytes(t.Context(), codectest.BytesSpec(0, 0), nil)
	codectest.MustCorrupt(t, err, "empty input")
}

// Chunks written by zarr-python 2 (numcodecs) and 3.
func TestFixtures(t *testing.T) {
	c := newCodec(t, "")
	fixturecheck.CheckArangeChunk(t, c, "zarrita-js/v2/data.zarr/1d.contiguous.zstd.i2", "0", dtype.Named("int16"), []int{4}, []int{0})
	fixturecheck.CheckArangeChunk(t, c, "zarrs/v3_zarr_python/array_zstd.zarr", "c/0/1", dtype.Named("float32"), []int{5, 5}, []int{0, 1})
}

func benchData() []byte {
	rng := rand.New(rand.NewPCG(1, 1))
	data := make([]byte, 1<<20)
	v := 1000
	for i := 0; i < len(data); i += 2 { // a random walk of uint16 values
		v += rng.IntN(7) - 3
		binary.LittleEndian.PutUint16(data[i:], uint16(v))
	}
	return data
}

func BenchmarkEncodeLevel0(b *testing.B) {
	c := newCodec(b, `{"level":0}`)
	data := benchData()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	defer reportCPU(b)()
	for range b.N {
		if _, err := c.EncodeBytes(b.Context(), codectest.BytesSpec(1<<20, 1<<20), data); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecodeLevel0(b *testing.B) {
	c := newCodec(b, `{"level":0}`)
	data := benchData()
	enc, _ := c.EncodeBytes(b.Context(), codectest.BytesSpec(1<<20, 1<<20), data)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	defer reportCPU(b)()
	for range b.N {
		if _, err := c.DecodeBytes(b.Context(), codectest.BytesSpec(1<<20, 1<<20), enc); err != nil {
			b.Fatal(err)
		}
	}
}

// Every frame records its content size, whatever the input size: numcodecs
// before 0.13 (Debian's 0.11) cannot decode frames without it.
func TestFramesRecordContentSize(t *testing.T) {
	c, err := New(t.Context(), json.RawMessage(`{"level":0}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{1, 16, 255, 256, 1000, 1 << 20} {
		b, err := c.(*Codec).EncodeBytes(t.Context(), codec.Spec{DecodedSize: -1}, make([]byte, n))
		if err != nil {
			t.Fatal(err)
		}
		var h zstd.Header
		if err := h.Decode(b); err != nil {
			t.Fatal(err)
		}
		if !h.HasFCS || h.FrameContentSize != uint64(n) {
			t.Errorf("%d-byte input: frame content size recorded=%v value=%d", n, h.HasFCS, h.FrameContentSize)
		}
		if singleSegment := b[4]&(1<<5) != 0; n < 256 && !singleSegment {
			t.Errorf("%d-byte input: frame is not single-segment", n)
		}
	}
}

// The shared decoders serve chunks of every size, one after another and
// at once, into buffers of exactly the decoded size; each decode gets its
// own bytes, and a buffer of the wrong size is refused, not overrun.
func TestDecoderReuseAcrossSizes(t *testing.T) {
	c := newCodec(t, `{"level":1}`)
	data := benchData()
	var sizes = []int{1 << 20, 10, 300 << 10, 1, 4 << 10, 1<<20 - 1, 77777}
	encoded := make([][]byte, len(sizes))
	for i, n := range sizes {
		var err error
		if encoded[i], err = c.EncodeBytes(t.Context(), codectest.BytesSpec(int64(n), int64(n)), data[len(data)-n:]); err != nil {
			t.Fatal(err)
		}
	}
	into := c.(codec.DecoderInto)
	done := make(chan error)
	for g := range 4 {
		go func() {
			var err error
			defer func() { done <- err }()
			dst := make([]byte, 1<<20)
			for round := range 20 {
				i := (g + round) % len(sizes)
				n := sizes[i]
				want := data[len(data)-n:]
				if err = into.DecodeBytesInto(t.Context(), codectest.BytesSpec(int64(n), int64(n)), encoded[i], dst[:n]); err != nil {
					return
				}
				if !bytes.Equal(dst[:n], want) {
					err = fmt.Errorf("size %d: decoded bytes differ", n)
					return
				}
				out, derr := c.DecodeBytes(t.Context(), codectest.BytesSpec(int64(n), int64(n)), encoded[i])
				if derr != nil || !bytes.Equal(out, want) {
					err = fmt.Errorf("size %d: DecodeBytes: %v", n, derr)
					return
				}
			}
		}()
	}
	for range 4 {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	dst := make([]byte, 300<<10+1)
	err := into.DecodeBytesInto(t.Context(), codectest.BytesSpec(-1, 0), encoded[2], dst[:300<<10-1])
	codectest.MustCorrupt(t, err, "buffer one byte short")
	err = into.DecodeBytesInto(t.Context(), codectest.BytesSpec(-1, 0), encoded[2], dst)
	codectest.MustCorrupt(t, err, "buffer one byte long")
}

// benchChunk is a 32 MiB chunk of zarr_benchmarks' zstd array, as
// bench/zarrbench makes it (ZARRGW_BENCH_ZSTD_CHUNK names another): its
// frame and decoded bytes.
func benchChunk(b *testing.B) (frame, raw []byte) {
	path := os.Getenv("ZARRGW_BENCH_ZSTD_CHUNK")
	if path == "" {
		path = "/var/tmp/zarrgw-zarrbench/zstd.zarr/c/1/2/3"
	}
	frame, err := os.ReadFile(path)
	if err != nil {
		b.Skipf("no benchmark chunk: %v", err)
	}
	raw, err = newCodec(b, "").DecodeBytes(b.Context(), codectest.BytesSpec(-1, 1<<30), frame)
	if err != nil {
		b.Fatal(err)
	}
	return frame, raw
}

// BenchmarkChunk encodes a 32 MiB chunk at levels 0 and 1, and decodes
// its stored frame into a buffer of the chunk's size (as array reads do);
// run it with and without -tags libzstd to compare the builds.
func BenchmarkChunk(b *testing.B) {
	frame, raw := benchChunk(b)
	n := int64(len(raw))
	for _, level := range []int{0, 1} {
		c := newCodec(b, fmt.Sprintf(`{"level":%d}`, level))
		b.Run(fmt.Sprintf("encode/level%d", level), func(b *testing.B) {
			var enc []byte
			b.SetBytes(n)
			defer reportCPU(b)()
			for range b.N {
				var err error
				if enc, err = c.EncodeBytes(b.Context(), codectest.BytesSpec(n, n), raw); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(enc)), "encoded-bytes")
		})
	}
	b.Run("decode", func(b *testing.B) {
		c := newCodec(b, "").(codec.DecoderInto)
		dst := make([]byte, n)
		b.SetBytes(n)
		defer reportCPU(b)()
		for range b.N {
			if err := c.DecodeBytesInto(b.Context(), codectest.BytesSpec(n, n), frame, dst); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// reportCPU reports the process's CPU time (user and system) per
// operation when the returned func runs: on a shared, loaded machine it
// varies far less than wall time, and both builds' codecs use one thread.
func reportCPU(b *testing.B) func() {
	start := cpuTime(b)
	b.ResetTimer()
	return func() {
		b.StopTimer()
		b.ReportMetric(float64((cpuTime(b)-start).Nanoseconds())/float64(b.N), "cpu-ns/op")
	}
}

func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
