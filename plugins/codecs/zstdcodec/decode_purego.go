//go:build !libzstd

package zstdcodec

import (
	"errors"
	"fmt"
	"unsafe"

	"github.com/klauspost/compress/zstd"

	"github.com/zarrgw/zarrgw/core/codec"
)

// decodeCapped decodes b into a new buffer of capacity size, failing with
// errOutputFull rather than growing it.
func decodeCapped(b []byte, size int64) ([]byte, error) {
	dec, err := cappedDecoder()
	if err != nil {
		return nil, fmt.Errorf("zstd: %w", err)
	}
	out, err := dec.DecodeAll(b, make([]byte, 0, size))
	switch {
	case errors.Is(err, zstd.ErrDecoderSizeExceeded):
		return nil, errOutputFull
	case err != nil:
		return nil, fmt.Errorf("zstd: %w: %v", codec.ErrCorrupt, err)
	}
	return out, nil
}

// decodeExact decodes b into dst, which it must fill exactly; the capped
// decoder never writes past cap(dst).
func decodeExact(b, dst []byte) error {
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
