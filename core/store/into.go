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

// GetInto reads key into dst as ReaderInto does, through s's own GetInto
// when it has one and through Get and a copy otherwise. Stores that wrap
// another use it to keep the copy-free path of the store below.
func GetInto(ctx context.Context, s Store, key string, dst []byte) (bool, error) {
	if into, ok := s.(ReaderInto); ok {
		return into.GetInto(ctx, key, dst)
	}
	v, err := s.Get(ctx, key, ByteRange{})
	if err != nil || len(v.Data) != len(dst) {
		return false, err
	}
	copy(dst, v.Data)
	return true, nil
}
