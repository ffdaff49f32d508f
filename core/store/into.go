package store

import "context"

// ReaderInto is implemented by stores that can read a whole value into the
// caller's buffer, saving a copy on the hot read path.
type ReaderInto interface {
	// GetInto reads the value of key into dst when its size is exactly
	// len(dst) and reports true; when the size differs it reads nothing
	// and reports false. A missing key is ErrNotFound.
	GetInto(ctx context.Context, key string, dst []byte) (bool, error)
}
