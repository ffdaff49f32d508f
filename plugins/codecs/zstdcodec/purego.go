//go:build !libzstd

package zstdcodec

// The default build: klauspost/compress, pure Go, encodes and decodes.

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"unsafe"

	"github.com/klauspost/compress/zstd"

	"github.com/zarrgw/zarrgw/core/codec"
)

// Library names the zstd implementation of this build, as `zarrgw
// version` reports it.
func Library() string {
	return strings.TrimSpace("klauspost/compress " + moduleVersion("github.com/klauspost/compress") + " (pure Go)")
}

// encoders are built on first use and shared by all calls of one codec
// (EncodeAll is safe for concurrent use).
type encoders struct {
	encOnce sync.Once
	enc     *zstd.Encoder
	encErr  error
	// small encodes inputs below smallFrame bytes (see smallEncoder).
	smallOnce sync.Once
	small     *zstd.Encoder
	smallErr  error
}

// encoderLevel maps a zstd level to the library's speed classes. Level 0
// means zstd's default (3), which the library helper would map to fastest.
func encoderLevel(level int) zstd.EncoderLevel {
	if level == 0 {
		return zstd.SpeedDefault
	}
	return zstd.EncoderLevelFromZstd(level)
}

func (c *Codec) encoder() (*zstd.Encoder, error) {
	c.encOnce.Do(func() {
		c.enc, c.encErr = zstd.NewWriter(nil,
			zstd.WithEncoderLevel(encoderLevel(c.level)),
			zstd.WithEncoderCRC(c.checksum))
	})
	return c.enc, c.encErr
}

// smallEncoder writes single-segment frames: below 256 bytes that is the
// only frame form that records the content size.
func (c *Codec) smallEncoder() (*zstd.Encoder, error) {
	c.smallOnce.Do(func() {
		c.small, c.smallErr = zstd.NewWriter(nil,
			zstd.WithEncoderLevel(encoderLevel(c.level)),
			zstd.WithEncoderCRC(c.checksum),
			zstd.WithSingleSegment(true))
	})
	return c.small, c.smallErr
}

// smallFrame is the input size below which frames only record their
// content size in single-segment form.
const smallFrame = 256

// EncodeBytes writes a single frame that always records its content size,
// which numcodecs before 0.13 needs to decode it. (Larger inputs keep the
// library's own segment choice: single-segment frames of hundreds of MiB
// would ask decoders for a window that large.)
func (c *Codec) EncodeBytes(_ context.Context, _ codec.Spec, b []byte) ([]byte, error) {
	enc, err := c.encoder()
	if len(b) < smallFrame {
		enc, err = c.smallEncoder()
	}
	if err != nil {
		return nil, fmt.Errorf("zstd: %w", err)
	}
	return enc.EncodeAll(b, make([]byte, 0, len(b)/2+64)), nil
}

// decompressInto decodes every frame of b into dst, never past len(dst):
// errOutputFull when the content needs more, ErrCorrupt for bad input.
func decompressInto(b, dst []byte) (int, error) {
	dec, err := cappedDecoder()
	if err != nil {
		return 0, fmt.Errorf("zstd: %w", err)
	}
	out, err := dec.DecodeAll(b, dst[:0:len(dst)])
	switch {
	case errors.Is(err, zstd.ErrDecoderSizeExceeded):
		return 0, errOutputFull
	case err != nil:
		return 0, fmt.Errorf("zstd: %w: %v", codec.ErrCorrupt, err)
	}
	if len(out) > 0 && unsafe.SliceData(out) != unsafe.SliceData(dst) {
		copy(dst, out) // the decoder chose its own buffer
	}
	return len(out), nil
}
