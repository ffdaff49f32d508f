package zlibcodec

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/zarrgw/zarrgw/tests/support/fixtures/fixturecheck"

	"github.com/zarrgw/zarrgw/tests/support/fixtures"

	"github.com/klauspost/compress/zlib"

	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/codec/codectest"
	"github.com/zarrgw/zarrgw/core/dtype"
)

var newCodec = codectest.Builder[codec.BytesBytes](New)

func TestConfiguration(t *testing.T) {
	codectest.CheckConfigurations(t, New, map[string]string{``: `{"level":1}`, `{"id":"zlib","level":8}`: `{"level":8}`, `{"level":-1}`: `{"level":-1}`})
	codectest.CheckRefused(t, New, `{"level":10}`, `{"level":-2}`)
	if Registration.Manifest.Name != "numcodecs.zlib" || newCodec(t, "").Name() != "numcodecs.zlib" {
		t.Error("name")
	}
}

func TestRoundTripAndCorruption(t *testing.T) {
	for _, cfg := range []string{`{"level":0}`, `{"level":-1}`, `{"level":9}`} {
		codectest.CheckCompressor(t, newCodec(t, cfg), true)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	enc := codectest.RoundTripBytes(t, newCodec(t, ""), codectest.Bytes(rng, 1000, true))
	if enc[0] != 0x78 {
		t.Errorf("zlib header %x", enc[:2])
	}
}

func TestBomb(t *testing.T) {
	var buf bytes.Buffer
	w, _ := zlib.NewWriterLevel(&buf, zlib.BestSpeed)
	codectest.WriteZeros(t, w, 100<<20)
	w.Close()
	codectest.CheckBomb(t, newCodec(t, ""), buf.Bytes(), 1<<20)
}

// Chunks written by zarr-python 2 and 3 (numcodecs zlib) and z5py.
func TestFixtures(t *testing.T) {
	c := newCodec(t, "")
	i16, f32 := dtype.Named("int16"), dtype.Named("float32")
	fixturecheck.CheckArangeChunk(t, c, "zarrita-js/v2/data.zarr/1d.contiguous.zlib.i2", "0", i16, []int{4}, []int{0})
	fixturecheck.CheckArangeChunk(t, c, "zarrs/v3_zarr_python/array_zlib.zarr", "c/1/1", f32, []int{5, 5}, []int{1, 1})
	fixturecheck.CheckArangeChunk(t, c, "zarr-python-v2/fixture/1/1", "7", i16, []int{100}, []int{7})
	fixturecheck.CheckDigest1D(t, c, "zarr-python-v2/fixture/8/1", 2) // float16
}

// The astronaut image written by z5py: 108 chunks of 100x100x1 over
// 512x512x3, reassembled and compared with the digest of the whole image.
func TestFixtureZ5py(t *testing.T) {
	const arr = "zarr_implementations/z5py.zr/zlib"
	e := fixtures.Array(t, arr)
	c := newCodec(t, "")
	img := make([]byte, 512*512*3)
	for ci := range 6 {
		for cj := range 6 {
			for ck := range 3 {
				chunk := fixturecheck.DecodeChunk(t, c, arr, fmt.Sprintf("%d.%d.%d", ci, cj, ck), 100*100)
				for i := range 100 {
					for j := range 100 {
						y, x := ci*100+i, cj*100+j
						if y < 512 && x < 512 {
							img[(y*512+x)*3+ck] = chunk[i*100+j]
						}
					}
				}
			}
		}
	}
	if got := fixturecheck.BytesSHA256(img); got != e.Expect.SHA256 {
		t.Errorf("sha256 %s, want %s", got, e.Expect.SHA256)
	}
}
