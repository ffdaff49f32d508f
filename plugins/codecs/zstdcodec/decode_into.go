package zstdcodec

import (
	"context"
	"fmt"

	"github.com/zarrgw/zarrgw/core/codec"
)

// DecodeBytesInto decodes b straight into dst, which is exactly the decoded
// size: the decoder never writes past len(dst), so an oversized or lying
// frame fails without allocating.
func (c *Codec) DecodeBytesInto(_ context.Context, in codec.Spec, b, dst []byte) error {
	if len(b) == 0 {
		return fmt.Errorf("zstd: %w: empty input", codec.ErrCorrupt)
	}
	exact := in
	exact.DecodedSize = int64(len(dst))
	if err := checkFirstFrame(b, exact); err != nil {
		return err
	}
	return decodeExact(b, dst)
}
