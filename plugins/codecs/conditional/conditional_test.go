package conditional_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"io"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/dtype"
	"github.com/zarrgw/zarrgw/plugins/builtin"
)

func build(t *testing.T, cfg string) codec.BytesBytes {
	t.Helper()
	c, err := builtin.Registry().Codec(context.Background(), "conditional", json.RawMessage(cfg))
	if err != nil {
		t.Fatalf("%s: %v", cfg, err)
	}
	return c.(codec.BytesBytes)
}

var spec = codec.Spec{DataType: dtype.Named("uint8"), Shape: []int{4096}, DecodedSize: 4096}

// A compressible chunk goes through the codecs (mask 1, a gzip stream
// that Go's own gzip reader reads back); an incompressible one is stored
// as it is behind a zero mask.
func TestCompressIfSmaller(t *testing.T) {
	c := build(t, `{"codecs":[{"name":"gzip","configuration":{"level":5}}]}`)
	zeros := make([]byte, 4096)
	enc, err := c.EncodeBytes(context.Background(), spec, zeros)
	if err != nil || enc[0] != 1 || len(enc) >= len(zeros) {
		t.Fatalf("zeros: mask %v, %d bytes, %v", enc[:1], len(enc), err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(enc[1:]))
	if err != nil {
		t.Fatal(err)
	}
	if got, err := io.ReadAll(zr); err != nil || !bytes.Equal(got, zeros) {
		t.Errorf("gzip stream does not hold the chunk: %v", err)
	}
	noise := make([]byte, 4096)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range noise {
		noise[i] = byte(rng.Uint32())
	}
	enc2, err := c.EncodeBytes(context.Background(), spec, noise)
	if err != nil || enc2[0] != 0 || !bytes.Equal(enc2[1:], noise) {
		t.Fatalf("noise: header %v, %d bytes, %v", enc2[:1], len(enc2), err)
	}
	for _, e := range [][]byte{enc, enc2} {
		dec, err := c.DecodeBytes(context.Background(), spec, e)
		if err != nil || (!bytes.Equal(dec, zeros) && !bytes.Equal(dec, noise)) {
			t.Errorf("decode: %v", err)
		}
	}
}

// header_bits widens the header; bits beyond the codecs are corrupt.
func TestHeader(t *testing.T) {
	c := build(t, `{"codecs":[{"name":"numcodecs.shuffle","configuration":{"elementsize":4}},"zstd"],"header_bits":16}`)
	data := bytes.Repeat([]byte{1, 2, 3, 4}, 1024)
	enc, err := c.EncodeBytes(context.Background(), spec, data)
	if err != nil || enc[0] != 3 || enc[1] != 0 {
		t.Fatalf("header % x: %v", enc[:2], err)
	}
	if dec, err := c.DecodeBytes(context.Background(), spec, enc); err != nil || !bytes.Equal(dec, data) {
		t.Errorf("decode: %v", err)
	}
	for _, bad := range [][]byte{{4, 0, 1}, {0, 1, 1}, {0}} {
		if _, err := c.DecodeBytes(context.Background(), spec, bad); err == nil {
			t.Errorf("% x decoded", bad)
		}
	}
}

// Refusals name the codec and the field.
func TestRefusals(t *testing.T) {
	r := builtin.Registry()
	for cfg, want := range map[string]string{
		``:                                    "codecs",
		`{"codecs":[{"name":"bytes"}]}`:       "not a bytes->bytes",
		`{"codecs":["gzip"],"header_bits":4}`: "header_bits",
		`{"codecs":["gzip"],"header_bits":99999}`: "header_bits",
		`{"codecs":["nope"]}`:                     "nope",
		`{"codecs":["gzip"],"mode":1}`:            "mode",
	} {
		if _, err := r.Codec(context.Background(), "conditional", json.RawMessage(cfg)); err == nil || !strings.Contains(err.Error(), "conditional") || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v", cfg, err)
		}
	}
}
