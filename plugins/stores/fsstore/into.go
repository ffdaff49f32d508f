package fsstore

import (
	"context"
	"fmt"

	"golang.org/x/sys/unix"
)

// GetInto reads the whole value of key into dst when its size is exactly
// len(dst), saving the copy a Get would need (see store.Store.GetInto).
func (s *Store) GetInto(ctx context.Context, key string, dst []byte) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, fmt.Errorf("fs: get %q: %w", key, err)
	}
	if err := checkKey(key); err != nil {
		return false, err
	}
	fd, err := s.openat(key, unix.O_RDONLY|unix.O_NONBLOCK)
	if err != nil {
		return false, readErr("get", key, err)
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return false, readErr("get", key, err)
	}
	if err := checkMode(key, st.Mode); err != nil {
		return false, err
	}
	if st.Size != int64(len(dst)) {
		return false, nil
	}
	if err := preadFull(fd, dst, 0); err != nil {
		return false, readErr("get", key, err)
	}
	return true, nil
}
