package bz2codec

import (
	"bytes"
	"testing"

	"github.com/zarrgw/zarrgw/tests/support/fixtures/fixturecheck"

	dsbzip2 "github.com/dsnet/compress/bzip2"

	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/codec/codectest"
	"github.com/zarrgw/zarrgw/core/dtype"
)

var newCodec = codectest.Builder[codec.BytesBytes](New)

func TestConfiguration(t *testing.T) {
	codectest.CheckConfigurations(t, New, map[string]string{``: `{"level":1}`, `{"id":"bz2","level":9}`: `{"level":9}`})
	codectest.CheckRefused(t, New, `{"level":0}`, `{"level":10}`)
}

func TestRoundTripAndCorruption(t *testing.T) {
	codectest.CheckCompressor(t, newCodec(t, ""), true)
	enc := codectest.RoundTripBytes(t, newCodec(t, `{"level":9}`), []byte("hello hello hello"))
	if string(enc[:3]) != "BZh" || enc[3] != '9' {
		t.Errorf("stream header %q", enc[:4])
	}
}

// Concatenated streams (as pbzip2 writes) decode as one.
func TestMultiStream(t *testing.T) {
	c := newCodec(t, "")
	a, _ := c.EncodeBytes(t.Context(), codectest.BytesSpec(3, 3), []byte("abc"))
	b, _ := c.EncodeBytes(t.Context(), codectest.BytesSpec(2, 2), []byte("de"))
	out, err := c.DecodeBytes(t.Context(), codectest.BytesSpec(5, 5), append(bytes.Clone(a), b...))
	if err != nil || string(out) != "abcde" {
		t.Fatalf("%q %v", out, err)
	}
}

// 20 MB of zeros (bzip2's run-length stage makes bigger bombs slow to
// build) against a 1 MB bound.
func TestBomb(t *testing.T) {
	var buf bytes.Buffer
	w, _ := dsbzip2.NewWriter(&buf, &dsbzip2.WriterConfig{Level: 9})
	codectest.WriteZeros(t, w, 20<<20)
	w.Close()
	codectest.CheckBomb(t, newCodec(t, ""), buf.Bytes(), 1<<20)
}

// Chunks written by zarrs (numcodecs.bz2 level 9) and zarr-python 2.
func TestFixtures(t *testing.T) {
	c := newCodec(t, "")
	fixturecheck.CheckArangeChunk(t, c, "zarrs/v3/array_bz2.zarr", "1.0", dtype.Named("float32"), []int{5, 5}, []int{1, 0})
	fixturecheck.CheckArangeChunk(t, c, "zarr-python-v2/fixture/2/2", "11", dtype.Named("int32"), []int{100}, []int{11})
	fixturecheck.CheckDigest1D(t, c, "zarr-python-v2/fixture/9/2", 4)
	fixturecheck.CheckDigest1D(t, c, "zarr-python-v2/fixture/16/2", 8)
}
