package zstdcodec

import (
	"context"
	"errors"
	"fmt"
	"unsafe"

	"github.com/klauspost/compress/zstd"

	"github.com/zarrgw/zarrgw/core/codec"
)

// DecodeBytesInto decodes b straight into dst, which is exactly the decoded
// size: the capped decoder never writes past cap(dst), so an oversized or
// lying frame fails without allocating.
func (c *Codec) DecodeBytesInto(_ context.Context, in codec.Spec, b, dst []byte) error {
	if len(b) == 0 {
		return fmt.Errorf("zstd: %w: empty input", codec.ErrCorrupt)
	}
	exact := in
	exact.DecodedSize = int64(len(dst))
	if err := checkFirstFrame(b, exact); err != nil {
		return err
	}
	dec, err := cappedDecoder()
	if err != nil {
		return fmt.Errorf("zstd: %w", err)
	}
	out, err := dec.DecodeAll(b, dst[:0:len(dst)])
	switch {
	case errors.Is(err, zstd.ErrDecoderSizeExceeded):
		return fmt.Errorf("zstd: %w: decodes to more than %d bytes", codec.ErrCorrupt, len(dst))
	case err != nil:
		return fmt.Errorf("zstd: %w: %v", codec.ErrCorrupt, err)
	case len(out) != len(dst):
		return fmt.Errorf("zstd: %w: %d bytes, want %d", codec.ErrCorrupt, len(out), len(dst))
	}
	if len(out) > 0 && unsafe.SliceData(out) != unsafe.SliceData(dst) {
		copy(dst, out) // the decoder chose its own buffer
	}
	return nil
}
