package zstdcodec

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/klauspost/compress/zstd"

	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/plugins/codecs/internal/bounded"
)

// maxWindow is libzstd's default decoder window limit (2^27): frames that
// need more are refused rather than given a huge history buffer.
const maxWindow = 1 << 27

// Decoders are shared by every codec instance (decoding takes no options)
// and safe for concurrent use. The capped one never writes past cap(dst),
// which is how output limits are enforced without allocating a bomb.
var (
	cappedDecoder = sync.OnceValues(func() (*zstd.Decoder, error) {
		return zstd.NewReader(nil, zstd.WithDecodeAllCapLimit(true), zstd.WithDecoderConcurrency(0), zstd.WithDecoderMaxWindow(maxWindow))
	})
	freeDecoder = sync.OnceValues(func() (*zstd.Decoder, error) {
		return zstd.NewReader(nil, zstd.WithDecoderConcurrency(0), zstd.WithDecoderMaxWindow(maxWindow))
	})
)

// DecodeBytes decodes every frame of b (concatenated frames and frames
// without a content size are accepted) within the spec's size limits. The
// bounded decode is the build's (decompressInto); a spec without any bound
// decodes with klauspost/compress in either build.
func (c *Codec) DecodeBytes(_ context.Context, in codec.Spec, b []byte) ([]byte, error) {
	if len(b) == 0 {
		return nil, fmt.Errorf("zstd: %w: empty input", codec.ErrCorrupt)
	}
	limit, ok := bounded.Limit(in)
	if !ok {
		return decodeFree(b)
	}
	if err := checkFirstFrame(b, in); err != nil {
		return nil, err
	}
	// Start from a guess and double up to the limit: a frame without a
	// content size, or several frames, can only be measured by decoding.
	size := limit
	if in.DecodedSize < 0 {
		size = min(limit, max(int64(4*len(b)), 64<<10))
	}
	for {
		out, err := decodeCapped(b, size)
		if err == nil {
			return out, bounded.Check(int64(len(out)), in)
		}
		if !errors.Is(err, errOutputFull) {
			return nil, err
		}
		if size >= limit {
			return nil, fmt.Errorf("zstd: %w: decodes to more than %d bytes", codec.ErrCorrupt, limit)
		}
		size = min(limit, 2*size)
	}
}

// decodeCapped decodes b into a new buffer of size bytes, failing with
// errOutputFull rather than growing it (decompressInto is the build's).
func decodeCapped(b []byte, size int64) ([]byte, error) {
	out := make([]byte, size)
	n, err := decompressInto(b, out)
	if err != nil {
		return nil, err
	}
	return out[:n], nil
}

// decodeExact decodes b into dst, which it must fill exactly.
func decodeExact(b, dst []byte) error {
	n, err := decompressInto(b, dst)
	switch {
	case errors.Is(err, errOutputFull):
		return fmt.Errorf("zstd: %w: decodes to more than %d bytes", codec.ErrCorrupt, len(dst))
	case err != nil:
		return err
	case n != len(dst):
		return fmt.Errorf("zstd: %w: %d bytes, want %d", codec.ErrCorrupt, n, len(dst))
	}
	return nil
}

// errOutputFull is what decodeCapped returns when the output needs more
// than its cap: the caller may retry with a larger one.
var errOutputFull = errors.New("decoded output exceeds the buffer")

// checkFirstFrame refuses a first frame whose declared content size is
// already beyond the limit, before any allocation.
func checkFirstFrame(b []byte, in codec.Spec) error {
	var h zstd.Header
	if err := h.Decode(b); err != nil {
		return fmt.Errorf("zstd: %w: frame header: %v", codec.ErrCorrupt, err)
	}
	if !h.HasFCS {
		return nil
	}
	if h.FrameContentSize > 1<<62 {
		return fmt.Errorf("zstd: %w: frame content size %d", codec.ErrCorrupt, h.FrameContentSize)
	}
	n := int64(h.FrameContentSize)
	if in.MaxDecodedSize > 0 && n > in.MaxDecodedSize || in.DecodedSize >= 0 && n > in.DecodedSize {
		if err := bounded.Check(n, in); err != nil {
			return fmt.Errorf("zstd: frame content size: %w", err)
		}
	}
	return nil
}

func decodeFree(b []byte) ([]byte, error) {
	dec, err := freeDecoder()
	if err != nil {
		return nil, fmt.Errorf("zstd: %w", err)
	}
	out, err := dec.DecodeAll(b, nil)
	if err != nil {
		return nil, fmt.Errorf("zstd: %w: %v", codec.ErrCorrupt, err)
	}
	return out, nil
}
