package codec

import (
	"context"
	"errors"
	"fmt"
	"io"
)

// A chunk that several reads take in order, a part each (the slabs of a
// streamed read that each hold a few of its rows), is decoded once when its
// chain can decode as a stream: each read takes the next bytes instead of
// decoding the whole chunk again. These optional interfaces let the
// pipeline see when that is possible.

// StreamDecoder is implemented by bytes->bytes codecs that can decode a
// stored value as a stream (zstd).
type StreamDecoder interface {
	// DecodeStream returns a reader of the decoded bytes of src, which it
	// reads as needed. in's limits are the caller's to enforce (the
	// pipeline does). The stream is closed once, by the caller.
	DecodeStream(ctx context.Context, in Spec, src io.Reader) (DecodedStream, error)
}

// DecodedStream is an open decoding stream.
type DecodedStream interface {
	io.ReadCloser
	// Memory is about the most the stream holds while open (a
	// decompressor's window, known from the header of its first frame),
	// which callers count against their memory budget.
	Memory() int64
}

// Streams reports whether DecodeStream can decode this pipeline's chunks:
// their decoded bytes are the in-memory element bytes and every
// bytes->bytes codec (there may be none) decodes as a stream.
func (p *Pipeline) Streams() bool {
	if len(p.aa) != 0 || p.abIn.DataType.Variable() {
		return false
	}
	if rl, ok := p.ab.(RawLayout); !ok || !rl.RawLayout(p.abIn) {
		return false
	}
	for _, c := range p.bb {
		if _, ok := c.(StreamDecoder); !ok {
			return false
		}
	}
	return true
}

// DecodeStream opens stored chunk src as a stream of its in-memory element
// bytes, exactly the chunk's size: a stream that ends short of it, or
// holds more, fails with an error wrapping ErrCorrupt (the excess is
// found when the last byte is read). Only valid when Streams reports true.
func (p *Pipeline) DecodeStream(ctx context.Context, src io.Reader) (DecodedStream, error) {
	var s DecodedStream = plainStream{src}
	var opened []DecodedStream
	for i := len(p.bb) - 1; i >= 0; i-- {
		c := p.bb[i]
		next, err := c.(StreamDecoder).DecodeStream(ctx, p.bbIn[i], s)
		if err != nil {
			closeAll(opened)
			return nil, fmt.Errorf("decode %s: %w", c.Name(), err)
		}
		opened = append(opened, next)
		s = namedStream{next, c.Name()}
	}
	return &exactStream{s: s, opened: opened, left: rawSize(p.abIn), size: rawSize(p.abIn)}, nil
}

func closeAll(streams []DecodedStream) error {
	var errs []error
	for _, s := range streams {
		errs = append(errs, s.Close())
	}
	return errors.Join(errs...)
}

// plainStream is the stored bytes themselves (the stage below the first
// decoder, or a chain without bytes->bytes codecs).
type plainStream struct{ io.Reader }

func (plainStream) Close() error  { return nil }
func (plainStream) Memory() int64 { return 0 }

// namedStream names its codec in the errors of its reads.
type namedStream struct {
	DecodedStream
	name string
}

func (n namedStream) Read(b []byte) (int, error) {
	k, err := n.DecodedStream.Read(b)
	if err != nil && err != io.EOF {
		err = fmt.Errorf("decode %s: %w: %w", n.name, ErrCorrupt, err)
	}
	return k, err
}

// exactStream holds a stream to exactly size bytes. The check that it
// ends there is made once the last byte is read, and reported by that
// read or, when the caller stops at that byte (io.ReadFull does), by the
// next.
type exactStream struct {
	s      DecodedStream
	opened []DecodedStream
	left   int64
	size   int64
	err    error
}

func (e *exactStream) Read(b []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	if e.left == 0 {
		return 0, io.EOF
	}
	if int64(len(b)) > e.left {
		b = b[:e.left]
	}
	n, err := e.s.Read(b)
	e.left -= int64(n)
	switch {
	case err == io.EOF && e.left > 0:
		return n, fmt.Errorf("%w: the stream ends after %d bytes, want %d", ErrCorrupt, e.size-e.left, e.size)
	case err == io.EOF:
		err = nil
	case err != nil:
		return n, err
	}
	if e.left == 0 {
		// the end: the stream must end here too
		var probe [1]byte
		for {
			k, err := e.s.Read(probe[:])
			if k > 0 {
				e.err = fmt.Errorf("%w: the stream holds more than %d bytes", ErrCorrupt, e.size)
				return n, e.err
			}
			if err == io.EOF {
				break
			}
			if err != nil {
				e.err = err
				return n, err
			}
		}
	}
	return n, err
}

func (e *exactStream) Close() error { return closeAll(e.opened) }
func (e *exactStream) Memory() int64 {
	var m int64
	for _, s := range e.opened {
		m += s.Memory()
	}
	return m
}
