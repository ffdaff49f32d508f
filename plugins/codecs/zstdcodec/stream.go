package zstdcodec

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"sync"

	"github.com/klauspost/compress/zstd"

	"github.com/zarrgw/zarrgw/core/codec"
)

// streamBlock is the most a zstd block decodes to; a stream holds its
// window plus about this much, and streamBuffer of its source (a
// block's header and body are read in small pieces: the buffer spares
// the source, often a file, a call for each).
const (
	streamBlock  = 128 << 10
	streamBuffer = 64 << 10
)

// streamDecoders recycles the decoders of streams: each owns a window's
// history buffer, which a recycled decoder keeps (Reset), so opening a
// stream allocates nothing once the pool is warm. Concurrency 1 decodes
// inside Read on the caller's goroutine: a stream is one chunk read by
// one reader at a time, and the readers of the other chunks keep the
// other cores busy.
var streamDecoders sync.Pool

func newStreamDecoder() (*zstd.Decoder, error) {
	return zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxWindow(maxWindow), zstd.WithDecoderLowmem(false))
}

// DecodeStream implements codec.StreamDecoder: src's frames, decoded as
// they are read. The first frame's header is checked against in's limits
// before anything is decoded, and gives the stream's Memory (its window);
// the caller enforces the decoded size.
func (c *Codec) DecodeStream(_ context.Context, in codec.Spec, src io.Reader) (codec.DecodedStream, error) {
	br := bufio.NewReaderSize(src, streamBuffer)
	head, err := br.Peek(zstd.HeaderMaxSize)
	if err != nil && (err != io.EOF || len(head) == 0) {
		if err == io.EOF {
			return nil, fmt.Errorf("zstd: %w: empty input", codec.ErrCorrupt)
		}
		return nil, fmt.Errorf("zstd: read frame header: %w", err)
	}
	if err := checkFirstFrame(head, in); err != nil {
		return nil, err
	}
	var h zstd.Header
	_ = h.Decode(head) // checked above
	if h.WindowSize > maxWindow {
		return nil, fmt.Errorf("zstd: %w: window of %d bytes, more than %d", codec.ErrCorrupt, h.WindowSize, maxWindow)
	}
	dec, _ := streamDecoders.Get().(*zstd.Decoder)
	if dec == nil {
		if dec, err = newStreamDecoder(); err != nil {
			return nil, fmt.Errorf("zstd: %w", err)
		}
	}
	if err := dec.Reset(br); err != nil {
		streamDecoders.Put(dec)
		return nil, fmt.Errorf("zstd: %w: %v", codec.ErrCorrupt, err)
	}
	window := int64(h.WindowSize)
	if h.SingleSegment && h.HasFCS {
		window = int64(h.FrameContentSize)
	}
	return &stream{dec: dec, memory: window + streamBlock + streamBuffer}, nil
}

// stream is an open zstd decoding stream.
type stream struct {
	dec    *zstd.Decoder
	memory int64
}

func (s *stream) Read(b []byte) (int, error) {
	if s.dec == nil {
		return 0, io.ErrClosedPipe
	}
	return s.dec.Read(b)
}

func (s *stream) Memory() int64 { return s.memory }

// Close hands the decoder back, holding no reference to the source.
func (s *stream) Close() error {
	if s.dec == nil {
		return nil
	}
	// Reset to no input drops the source; an error here only means the
	// decoder is not worth keeping.
	if err := s.dec.Reset(nil); err == nil {
		streamDecoders.Put(s.dec)
	}
	s.dec = nil
	return nil
}
