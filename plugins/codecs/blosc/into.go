package blosc

import (
	"context"
	"fmt"
	"unsafe"

	"github.com/zarrgw/zarrgw/core/codec"
)

// DecodeBytesInto implements codec.DecoderInto: the frame decodes straight
// into dst (part of an array read's output), which must be exactly the
// decoded size.
func (c *Codec) DecodeBytesInto(ctx context.Context, in codec.Spec, src, dst []byte) error {
	exact := in
	exact.DecodedSize = int64(len(dst))
	out, err := c.DecodeInto(ctx, exact, dst[:0:len(dst)], src)
	if err != nil {
		return err
	}
	if len(out) != len(dst) {
		return fmt.Errorf("blosc: %w: %d bytes, want %d", codec.ErrCorrupt, len(out), len(dst))
	}
	if len(out) > 0 && unsafe.SliceData(out) != unsafe.SliceData(dst) {
		copy(dst, out)
	}
	return nil
}
