//go:build libzstd

package zstdcodec

import (
	"bytes"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/zarrgw/zarrgw/core/codec/codectest"
)

// decoderState is what the libzstd build allocates in Go besides the
// output buffers: error text only (libzstd's contexts live in C).
const decoderState = 64 << 10

// Frames written by libzstd, at every kind of level, decode with the pure-Go
// decoder (the one zarrgw's default build and many readers use) to the
// input; level 0 is libzstd's default, 3.
func TestLibzstdFramesDecodeWithPureGo(t *testing.T) {
	data := benchData()
	dec, err := zstd.NewReader(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer dec.Close()
	for _, cfg := range []string{`{"level":0}`, `{"level":3}`, `{"level":1}`, `{"level":-5}`, `{"level":19,"checksum":true}`} {
		for _, n := range []int{0, 1, 255, 256, 70000, len(data)} {
			enc, err := newCodec(t, cfg).EncodeBytes(t.Context(), codectest.BytesSpec(int64(n), int64(n)), data[:n])
			if err != nil {
				t.Fatal(err)
			}
			out, err := dec.DecodeAll(enc, nil)
			if err != nil || !bytes.Equal(out, data[:n]) {
				t.Fatalf("%s, %d bytes: pure-Go decode: %v", cfg, n, err)
			}
		}
	}
	zero, _ := newCodec(t, `{"level":0}`).EncodeBytes(t.Context(), codectest.BytesSpec(-1, 0), data)
	three, _ := newCodec(t, `{"level":3}`).EncodeBytes(t.Context(), codectest.BytesSpec(-1, 0), data)
	if !bytes.Equal(zero, three) {
		t.Error("level 0 does not encode as level 3")
	}
}

// The checksum is the content's XXH64 after the frame libzstd wrote: the
// pure-Go decoder, which verifies it, accepts it, and refuses a frame whose
// checksum is off by one bit; so does this build's decoder.
func TestLibzstdChecksum(t *testing.T) {
	data := benchData()[:100000]
	plain, _ := newCodec(t, `{"checksum":false}`).EncodeBytes(t.Context(), codectest.BytesSpec(-1, 0), data)
	c := newCodec(t, `{"checksum":true}`)
	sum, err := c.EncodeBytes(t.Context(), codectest.BytesSpec(-1, 0), data)
	if err != nil {
		t.Fatal(err)
	}
	if len(sum) != len(plain)+4 || !bytes.Equal(sum[5:len(plain)], plain[5:]) || sum[4] != plain[4]|4 {
		t.Fatalf("checksummed frame is not the plain frame with the flag and 4 bytes (%d vs %d bytes)", len(sum), len(plain))
	}
	dec, _ := zstd.NewReader(nil)
	defer dec.Close()
	if out, err := dec.DecodeAll(sum, nil); err != nil || !bytes.Equal(out, data) {
		t.Fatalf("pure-Go decode of the checksummed frame: %v", err)
	}
	sum[len(sum)-1] ^= 1
	if _, err := dec.DecodeAll(sum, nil); err == nil {
		t.Error("pure-Go decoder accepted a wrong checksum")
	}
	_, err = c.DecodeBytes(t.Context(), codectest.BytesSpec(int64(len(data)), int64(len(data))), sum)
	codectest.MustCorrupt(t, err, "wrong checksum")
}
