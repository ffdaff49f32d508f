package store

import (
	"context"
	"fmt"
	"io"
	"os"
)

// OpenFile and SetFrom (Optional.File) are the operations of a store whose
// values are files (the fs store), or of a wrapper that passes such a
// store's bytes through unchanged. A server
// hands an open file to the kernel (sendfile) instead of reading the
// value into memory and writing it out again, and writes a request's
// body into a new file as it arrives instead of holding it in memory.
//
// A wrapper claims them only when the bytes it returns are the bytes of
// the store below, byte for byte: one that compresses, encrypts, caches or
// rearranges them (sharding) does not, so a value read through it is read
// the ordinary way. Like the other optional operations, a wrapper that
// keeps the bytes claims them exactly when the store below does.
//
// Store.OpenFile opens key's value for reading, positioned at its start,
// with its Info taken from the open file: the bytes read from it are those
// of that version, whatever is written to the key meanwhile. The caller
// closes the file. A value that fits in buf is read into buf[:info.Size]
// instead, and the file is nil: a small value costs less read than handed
// out as a file. A missing key is ErrNotFound.
//
// Store.SetFrom stores the bytes of r, read to its end, as key's value,
// under cond, as Set does with a slice: the bytes go to a new file as they
// are read, and the file replaces the value only once r has ended with
// io.EOF. An error from r (a client gone, a body over its limit, a failed
// checksum) is returned wrapped, and the key keeps the value it had. A
// store that can check cond before reading r does, so that a refused
// write reads nothing.

// SetFrom stores r's bytes as key's value through s's own SetFrom, or
// reports ErrUnsupported, without reading r, where s has none: the
// caller then reads r into memory for Set.
func SetFrom(ctx context.Context, s Store, key string, r io.Reader, cond Condition) (string, error) {
	if OptionalOf(s).File {
		return s.SetFrom(ctx, key, r, cond)
	}
	return "", fmt.Errorf("set %q from a stream: %w", key, ErrUnsupported)
}

// OpenFile opens key's value as a file (or reads it into buf) through
// s's own OpenFile, or reports ErrUnsupported where s has none.
func OpenFile(ctx context.Context, s Store, key string, buf []byte) (*os.File, Info, error) {
	if OptionalOf(s).File {
		return s.OpenFile(ctx, key, buf)
	}
	return nil, Info{}, fmt.Errorf("open %q as a file: %w", key, ErrUnsupported)
}

// OpenFile keeps the store's own files below the prefix.
func (s *sub) OpenFile(ctx context.Context, key string, buf []byte) (*os.File, Info, error) {
	k, err := s.key(key)
	if err != nil {
		return nil, Info{}, err
	}
	return OpenFile(ctx, s.next, k, buf)
}

// SetFrom keeps the store's own files below the prefix.
func (s *sub) SetFrom(ctx context.Context, key string, r io.Reader, cond Condition) (string, error) {
	k, err := s.key(key)
	if err != nil {
		return "", err
	}
	return SetFrom(ctx, s.next, k, r, cond)
}

// OpenFile opens the file inside the hook, as a "get": it counts and
// waits as a read does. The bytes are sent after the hook returns, as a
// value read by Get is.
func (h *hooked) OpenFile(ctx context.Context, key string, buf []byte) (*os.File, Info, error) {
	var out struct { // one allocation for what the call returns
		f    *os.File
		info Info
	}
	err := h.hook(ctx, "get", key, func(ctx context.Context) (err error) {
		out.f, out.info, err = OpenFile(ctx, h.next, key, buf)
		return err
	})
	return out.f, out.info, err
}

// SetFrom runs inside the hook as a "set_stream": the call lasts as long
// as its reader takes to deliver, which a client's pace decides, so a
// hook that bounds concurrency can give such calls places of their own.
func (h *hooked) SetFrom(ctx context.Context, key string, r io.Reader, cond Condition) (version string, err error) {
	err = h.hook(ctx, "set_stream", key, func(ctx context.Context) error {
		version, err = SetFrom(ctx, h.next, key, r, cond)
		return err
	})
	return version, err
}

// SetFrom is refused, as Set is, before anything is read.
func (r readOnly) SetFrom(ctx context.Context, key string, _ io.Reader, _ Condition) (string, error) {
	return r.Set(ctx, key, nil, Condition{})
}

// OpenFile reads as the store below does: reading is what a read-only
// store allows.
func (r readOnly) OpenFile(ctx context.Context, key string, buf []byte) (*os.File, Info, error) {
	return OpenFile(ctx, r.Store, key, buf)
}

// CountingReader counts the bytes read through it: what a SetFrom took of
// its reader, for a trace or to tell whether a failed write began.
type CountingReader struct {
	R io.Reader
	N int64
}

func (c *CountingReader) Read(p []byte) (int, error) {
	n, err := c.R.Read(p)
	c.N += int64(n)
	return n, err
}
