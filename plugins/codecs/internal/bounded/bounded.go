// Package bounded reads the output of a decompressor within the size limits
// a codec.Spec sets (exact DecodedSize, MaxDecodedSize), so that a small
// malicious input cannot make a codec allocate or produce a huge output.
package bounded

import (
	"errors"
	"fmt"
	"io"

	"github.com/zarrgw/zarrgw/core/codec"
)

// Limit is the most bytes a decode for spec in may produce: the exact size
// when known, else MaxDecodedSize; ok is false when there is no bound.
func Limit(in codec.Spec) (limit int64, ok bool) {
	if in.DecodedSize >= 0 {
		return in.DecodedSize, true
	}
	if in.MaxDecodedSize > 0 {
		return in.MaxDecodedSize, true
	}
	return 0, false
}

// Check validates a decoded size known before decoding (from a header)
// against the spec, so that a codec can refuse before allocating.
func Check(n int64, in codec.Spec) error {
	if n < 0 {
		return fmt.Errorf("%w: negative decoded size %d", codec.ErrCorrupt, n)
	}
	if in.DecodedSize >= 0 && n != in.DecodedSize {
		return fmt.Errorf("%w: decodes to %d bytes, want %d", codec.ErrCorrupt, n, in.DecodedSize)
	}
	if in.MaxDecodedSize > 0 && n > in.MaxDecodedSize {
		return fmt.Errorf("%w: decodes to %d bytes, more than the limit of %d", codec.ErrCorrupt, n, in.MaxDecodedSize)
	}
	return nil
}

// ReadAll reads r to its end within the limits of in. hint is a guess of
// the decoded size used when the exact size is unknown. Every failure,
// including a read error from r, wraps codec.ErrCorrupt: r is a
// decompressor and its errors mean the input is malformed.
func ReadAll(r io.Reader, in codec.Spec, hint int) ([]byte, error) {
	if in.DecodedSize >= 0 {
		if err := Check(in.DecodedSize, in); err != nil {
			return nil, err
		}
		return readExact(r, in.DecodedSize)
	}
	limit := int64(-1)
	if in.MaxDecodedSize > 0 {
		limit = in.MaxDecodedSize
	}
	return readUpTo(r, limit, hint)
}

// readExact reads exactly n bytes and then makes sure r has nothing more;
// reading to EOF also lets r verify a trailing checksum.
func readExact(r io.Reader, n int64) ([]byte, error) {
	buf := make([]byte, n)
	if got, err := io.ReadFull(r, buf); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%w: decoded %d bytes, want %d", codec.ErrCorrupt, got, n)
		}
		return nil, corrupt(err)
	}
	if err := expectEOF(r); err != nil {
		if errors.Is(err, errLonger) {
			return nil, fmt.Errorf("%w: decodes to more than %d bytes", codec.ErrCorrupt, n)
		}
		return nil, err
	}
	return buf, nil
}

var errLonger = errors.New("more data")

// expectEOF reads one more byte: only io.EOF is acceptable.
func expectEOF(r io.Reader) error {
	var one [1]byte
	for range 100 {
		n, err := r.Read(one[:])
		if n > 0 {
			return errLonger
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return corrupt(err)
		}
	}
	return fmt.Errorf("%w: decompressor makes no progress", codec.ErrCorrupt)
}

// readUpTo reads r to EOF, failing as soon as the output would pass limit
// (limit < 0: no bound). The buffer grows geometrically, so a bomb is
// stopped after at most about twice the limit has been allocated in total.
func readUpTo(r io.Reader, limit int64, hint int) ([]byte, error) {
	size := int64(max(hint, 512))
	if limit >= 0 {
		size = min(size, limit)
	}
	buf := make([]byte, 0, size)
	for {
		if len(buf) == cap(buf) {
			if limit >= 0 && int64(len(buf)) >= limit {
				if err := expectEOF(r); err != nil {
					if errors.Is(err, errLonger) {
						return nil, fmt.Errorf("%w: decodes to more than the limit of %d bytes", codec.ErrCorrupt, limit)
					}
					return nil, err
				}
				return buf, nil
			}
			buf = grow(buf, limit)
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return nil, corrupt(err)
		}
	}
}

func grow(buf []byte, limit int64) []byte {
	next := int64(cap(buf))*2 + 512
	if limit >= 0 {
		next = min(next, limit)
	}
	nb := make([]byte, len(buf), next)
	copy(nb, buf)
	return nb
}

func corrupt(err error) error {
	if errors.Is(err, codec.ErrCorrupt) {
		return err
	}
	return fmt.Errorf("%w: %v", codec.ErrCorrupt, err)
}
