package store

import "context"

// BufferReader is implemented by stores that read a whole value with one
// request into a buffer the caller lends, when it fits, and into one of
// their own otherwise: a plugin serving the store reads with it straight
// into the host's shared memory, where a Get would need a copy (and
// GetInto a Stat first, to know the size). It is a hint for whoever
// holds the store itself, not one of the optional operations wrappers
// forward (see Optional): a wrapped store is read with Get and a copy.
type BufferReader interface {
	// GetBuffer returns the whole value of key, its Data buf[:size] when
	// the value fits in buf and a new slice otherwise. A missing key is
	// ErrNotFound.
	GetBuffer(ctx context.Context, key string, buf []byte) (Value, error)
}

// GetInto reads key into dst as Store.GetInto does, through s's own
// GetInto when it claims one (Optional.Into) and through Get and a copy
// otherwise. Stores that wrap another use it to keep the copy-free path
// of the store below.
func GetInto(ctx context.Context, s Store, key string, dst []byte) (bool, error) {
	if OptionalOf(s).Into {
		return s.GetInto(ctx, key, dst)
	}
	v, err := s.Get(ctx, key, ByteRange{})
	if err != nil || len(v.Data) != len(dst) {
		return false, err
	}
	copy(dst, v.Data)
	return true, nil
}
