package gzipcodec

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/zarrgw/zarrgw/tests/support/fixtures/fixturecheck"

	"github.com/klauspost/compress/gzip"

	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/codec/codectest"
	"github.com/zarrgw/zarrgw/core/dtype"
)

var newCodec = codectest.Builder[codec.BytesBytes](New)

func TestConfiguration(t *testing.T) {
	codectest.CheckConfigurations(t, New, map[string]string{
		``: `{"level":5}`, `{"level":9}`: `{"level":9}`, `{"id":"gzip"}`: `{"level":1}`, `{"id":"gzip","level":0}`: `{"level":0}`,
	})
	codectest.CheckRefused(t, New, `{"level":10}`, `{"level":-1}`, `{"level":"x"}`)
}

func TestRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for _, level := range []string{`{"level":0}`, `{"level":1}`, `{"level":9}`} {
		c := newCodec(t, level)
		for _, n := range []int{0, 1, 100, 70000} {
			for _, comp := range []bool{false, true} {
				enc := codectest.RoundTripBytes(t, c, codectest.Bytes(rng, n, comp))
				if enc[0] != 0x1f || enc[1] != 0x8b {
					t.Fatalf("not a gzip member: %x", enc[:2])
				}
			}
		}
	}
}

func TestMultiMember(t *testing.T) {
	c := newCodec(t, ``)
	a, _ := c.EncodeBytes(t.Context(), codectest.BytesSpec(3, 3), []byte("abc"))
	b, _ := c.EncodeBytes(t.Context(), codectest.BytesSpec(2, 2), []byte("de"))
	out, err := c.DecodeBytes(t.Context(), codectest.BytesSpec(5, 5), append(append([]byte{}, a...), b...))
	if err != nil || string(out) != "abcde" {
		t.Fatalf("%q, %v", out, err)
	}
}

func TestCorrupt(t *testing.T) {
	c := newCodec(t, ``)
	codectest.CheckCompressor(t, c, true)
	enc, _ := c.EncodeBytes(t.Context(), codectest.BytesSpec(5, 5), []byte("hello"))
	_, err := c.DecodeBytes(t.Context(), codectest.BytesSpec(4, 4), enc)
	codectest.MustCorrupt(t, err, "wrong size")
	_, err = c.DecodeBytes(t.Context(), codectest.BytesSpec(6, 6), enc)
	codectest.MustCorrupt(t, err, "wrong size")
}

// 100 MB of zeros compress to about 100 KB; with a 1 MB bound the decoder
// must stop early and allocate little.
func TestBomb(t *testing.T) {
	var buf bytes.Buffer
	w, _ := gzip.NewWriterLevel(&buf, gzip.BestSpeed)
	codectest.WriteZeros(t, w, 100<<20)
	w.Close()
	codectest.CheckBomb(t, newCodec(t, ``), buf.Bytes(), 1<<20)
}

// Chunks written by zarr-python (v2 and v3) and zarrs.
func TestFixtures(t *testing.T) {
	c := newCodec(t, ``)
	i16, f32 := dtype.Named("int16"), dtype.Named("float32")
	fixturecheck.CheckArangeChunk(t, c, "zarrita-js/v3/data.zarr/1d.contiguous.gzip.i2", "c/0", i16, []int{4}, []int{0})
	fixturecheck.CheckArangeChunk(t, c, "zarrs/v2/array_gzip_C.zarr", "1.1", f32, []int{5, 5}, []int{1, 1})
	fixturecheck.CheckArangeChunk(t, c, "zarrs/v3/array_gzip.zarr", "0.1", f32, []int{5, 5}, []int{0, 1})
	fixturecheck.CheckArangeChunk(t, c, "zarrs/v3_zarr_python/array_gzip.zarr", "c/1/0", f32, []int{5, 5}, []int{1, 0})
}

func BenchmarkDecode(b *testing.B) {
	c := newCodec(b, ``)
	data := codectest.Bytes(rand.New(rand.NewPCG(1, 1)), 1<<20, true)
	enc, _ := c.EncodeBytes(b.Context(), codectest.BytesSpec(1<<20, 1<<20), data)
	b.SetBytes(1 << 20)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if _, err := c.DecodeBytes(b.Context(), codectest.BytesSpec(1<<20, 1<<20), enc); err != nil {
			b.Fatal(err)
		}
	}
}
