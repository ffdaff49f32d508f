//go:build !libzstd

package zstdcodec

import (
	"testing"

	"github.com/klauspost/compress/zstd"
)

// decoderState is what klauspost/compress's decoders allocate for
// themselves in a decode (history and block buffers, built lazily).
const decoderState = 4 << 20

// Level 0 is zstd's default (3), not the library helper's fastest.
func TestLevelMapping(t *testing.T) {
	if encoderLevel(0) != zstd.SpeedDefault || encoderLevel(1) != zstd.SpeedFastest || encoderLevel(19) != zstd.SpeedBestCompression {
		t.Error("level mapping")
	}
}
