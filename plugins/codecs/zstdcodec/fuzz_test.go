package zstdcodec

import (
	"testing"

	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/codec/codectest"
)

// FuzzDecode feeds arbitrary bytes to both decodes of the build (pure Go,
// or libzstd with -tags libzstd): never a panic, every error
// codec.ErrCorrupt, never more than the bound, and what DecodeBytes
// accepts with an exact size, DecodeBytesInto decodes alike.
func FuzzDecode(f *testing.F) {
	c := newCodec(f, `{"level":1,"checksum":true}`)
	for _, n := range []int{0, 1, 300, 5000} {
		enc, err := c.EncodeBytes(f.Context(), codectest.BytesSpec(int64(n), int64(n)), benchData()[:n])
		if err != nil {
			f.Fatal(err)
		}
		f.Add(enc)
	}
	const bound = 64 << 10
	f.Fuzz(func(t *testing.T, b []byte) {
		out, err := codectest.DecodeNoPanic(t, c, codectest.BytesSpec(-1, bound), b)
		if err != nil {
			codectest.MustCorrupt(t, err, "fuzzed input")
			return
		}
		if len(out) > bound {
			t.Fatalf("decoded %d bytes, more than the bound %d", len(out), bound)
		}
		dst := make([]byte, len(out))
		if err := c.(codec.DecoderInto).DecodeBytesInto(t.Context(), codectest.BytesSpec(int64(len(out)), int64(len(out))), b, dst); err != nil {
			t.Fatalf("DecodeBytes accepted %d bytes, DecodeBytesInto refused: %v", len(out), err)
		}
		if string(dst) != string(out) {
			t.Fatal("DecodeBytes and DecodeBytesInto decoded differently")
		}
	})
}
