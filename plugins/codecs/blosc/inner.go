package blosc

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync"

	"github.com/klauspost/compress/snappy"
	"github.com/klauspost/compress/zlib"
	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"

	"github.com/zarrgw/zarrgw/core/codec"
)

// decompress decodes one split stream src of the inner compressor into
// exactly len(dst) bytes. Any failure wraps codec.ErrCorrupt.
func decompress(c Compressor, src, dst []byte) error {
	var err error
	switch c {
	case BloscLZ:
		return blosclzDecompress(src, dst)
	case LZ4:
		err = lz4Decompress(src, dst)
	case Snappy:
		err = snappyDecompress(src, dst)
	case Zlib:
		err = zlibDecompress(src, dst)
	case Zstd:
		err = zstdDecompress(src, dst)
	default:
		return unsupported("inner compressor %s", c)
	}
	if err != nil && !errors.Is(err, codec.ErrCorrupt) {
		err = fmt.Errorf("%w: %s: %w", codec.ErrCorrupt, c, err)
	}
	return err
}

func sizeMismatch(c Compressor, got, want int) error {
	return fmt.Errorf("%w: %s stream decodes to %d bytes, want %d", codec.ErrCorrupt, c, got, want)
}

func lz4Decompress(src, dst []byte) error {
	n, err := lz4.UncompressBlock(src, dst)
	if err != nil {
		return err
	}
	if n != len(dst) {
		return sizeMismatch(LZ4, n, len(dst))
	}
	return nil
}

func snappyDecompress(src, dst []byte) error {
	n, err := snappy.DecodedLen(src)
	if err != nil {
		return err
	}
	if n != len(dst) {
		return sizeMismatch(Snappy, n, len(dst))
	}
	out, err := snappy.Decode(dst, src)
	if err != nil {
		return err
	}
	if len(out) != len(dst) || &out[0] != &dst[0] {
		return sizeMismatch(Snappy, len(out), len(dst))
	}
	return nil
}

// zlibReader is a pooled zlib decompressor with its input reader.
type zlibReader struct {
	in bytes.Reader
	zr io.ReadCloser
}

var zlibReaders sync.Pool

func zlibDecompress(src, dst []byte) error {
	r, _ := zlibReaders.Get().(*zlibReader)
	if r == nil {
		r = &zlibReader{}
	}
	defer zlibReaders.Put(r)
	r.in.Reset(src)
	var err error
	if r.zr == nil {
		r.zr, err = zlib.NewReader(&r.in)
	} else {
		err = r.zr.(zlib.Resetter).Reset(&r.in, nil)
	}
	if err != nil {
		r.zr = nil
		return err
	}
	if n, err := io.ReadFull(r.zr, dst); err != nil {
		return fmt.Errorf("%w: zlib stream ends after %d of %d bytes: %w", codec.ErrCorrupt, n, len(dst), err)
	}
	// Reading on to the end checks the Adler-32 trailer and that the
	// stream holds nothing more.
	var one [1]byte
	if n, err := r.zr.Read(one[:]); n != 0 || err != io.EOF {
		return fmt.Errorf("%w: zlib stream longer than %d bytes or bad trailer", codec.ErrCorrupt, len(dst))
	}
	return nil
}

// zstdDecoder is shared: DecodeAll is safe for concurrent use, and the cap
// limit makes it stop at len(dst) instead of growing its output.
var zstdDecoder = sync.OnceValues(func() (*zstd.Decoder, error) {
	return zstd.NewReader(nil,
		zstd.WithDecoderConcurrency(runtime.GOMAXPROCS(0)),
		zstd.WithDecodeAllCapLimit(true),
		zstd.WithDecoderLowmem(false))
})

func zstdDecompress(src, dst []byte) error {
	var h zstd.Header
	if err := h.Decode(src); err != nil {
		return err
	}
	if h.HasFCS && h.FrameContentSize != uint64(len(dst)) {
		return sizeMismatch(Zstd, int(min(h.FrameContentSize, 1<<62)), len(dst))
	}
	dec, err := zstdDecoder()
	if err != nil {
		return fmt.Errorf("zstd decoder: %w", err)
	}
	out, err := dec.DecodeAll(src, dst[:0:len(dst)])
	if err != nil {
		return err
	}
	if len(out) != len(dst) {
		return sizeMismatch(Zstd, len(out), len(dst))
	}
	if &out[0] != &dst[0] {
		copy(dst, out)
	}
	return nil
}
