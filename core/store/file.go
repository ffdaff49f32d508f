package store

import (
	"context"
	"fmt"
	"os"
)

// FileOpener is a store whose values are files (the fs store), or a
// wrapper that passes such a store's bytes through unchanged. A server
// hands an open file to the kernel (sendfile) instead of reading the
// value into memory and writing it out again.
//
// A wrapper implements it only when the bytes it returns are the bytes of
// the store below, byte for byte: one that compresses, encrypts, caches or
// rearranges them (sharding) does not, so a value read through it is read
// the ordinary way. Like the other optional interfaces, a wrapper shows it
// exactly when the store below does (ForwardOptional).
type FileOpener interface {
	// OpenFile opens key's value for reading, positioned at its start,
	// with its Info taken from the open file: the bytes read from it are
	// those of that version, whatever is written to the key meanwhile.
	// The caller closes the file. A value that fits in buf is read into
	// buf[:info.Size] instead, and the file is nil: a small value costs
	// less read than handed out as a file. A missing key is ErrNotFound.
	OpenFile(ctx context.Context, key string, buf []byte) (*os.File, Info, error)
}

// OpenFile opens key's value as a file (or reads it into buf) through
// s's own OpenFile, or reports ErrUnsupported where s has none.
func OpenFile(ctx context.Context, s Store, key string, buf []byte) (*os.File, Info, error) {
	if fo, ok := s.(FileOpener); ok {
		return fo.OpenFile(ctx, key, buf)
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

// OpenFile reads as the store below does: reading is what a read-only
// store allows.
func (r readOnly) OpenFile(ctx context.Context, key string, buf []byte) (*os.File, Info, error) {
	return OpenFile(ctx, r.Store, key, buf)
}
