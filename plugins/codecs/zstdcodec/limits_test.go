package zstdcodec

import (
	"bytes"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/codec/codectest"
)

// zeroFrame compresses n zero bytes into one frame, recording the content
// size or not (as a streaming encoder writes it).
func zeroFrame(t *testing.T, n int64, sized bool) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := zstd.NewWriter(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if sized {
		w.ResetContentSize(&buf, n)
	}
	codectest.WriteZeros(t, w, n)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	var h zstd.Header
	if err := h.Decode(buf.Bytes()); err != nil || h.HasFCS != sized {
		t.Fatalf("test frame: content size recorded %v, want %v (%v)", h.HasFCS, sized, err)
	}
	return buf.Bytes()
}

// A frame that declares 100 MiB is refused from its header when the limit
// is 1 MiB: no output buffer is allocated at all, not even a first guess.
func TestDeclaredSizeRefusedBeforeAllocation(t *testing.T) {
	c := newCodec(t, "")
	bomb := zeroFrame(t, 100<<20, true)
	for _, spec := range []codec.Spec{codectest.BytesSpec(-1, 1<<20), codectest.BytesSpec(1<<20, 1<<20)} {
		var err error
		codectest.MaxAlloc(t, 32<<10, func() { _, err = c.DecodeBytes(t.Context(), spec, bomb) })
		codectest.MustCorrupt(t, err, "declared size over the limit")
		if !strings.Contains(err.Error(), "frame content size") {
			t.Errorf("spec %+v: %v, want a refusal from the frame content size", spec, err)
		}
	}
	dst := make([]byte, 1<<20)
	err := c.(codec.DecoderInto).DecodeBytesInto(t.Context(), codectest.BytesSpec(-1, 1<<20), bomb, dst)
	codectest.MustCorrupt(t, err, "declared size over the buffer")
}

// A frame of 100 MiB of zeros without a content size can only be measured
// by decoding it: the decode stops at the 1 MiB limit, having allocated
// no more than the doubling buffers up to the limit and the decoder's own
// working state (decoderState, which differs by build).
func TestUnsizedBombCapped(t *testing.T) {
	c := newCodec(t, "")
	bomb := zeroFrame(t, 100<<20, false)
	const limit = 1 << 20
	var err error
	codectest.MaxAlloc(t, 2*limit+decoderState, func() { _, err = c.DecodeBytes(t.Context(), codectest.BytesSpec(-1, limit), bomb) })
	codectest.MustCorrupt(t, err, "unsized bomb")
	if !strings.Contains(err.Error(), "decodes to more than 1048576 bytes") {
		t.Errorf("%v, want the limit named", err)
	}
	dst := make([]byte, limit)
	err = c.(codec.DecoderInto).DecodeBytesInto(t.Context(), codectest.BytesSpec(-1, limit), bomb, dst)
	codectest.MustCorrupt(t, err, "unsized bomb into a buffer")
}
