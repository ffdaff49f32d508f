package fsstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"golang.org/x/sys/unix"

	"github.com/zarrgw/zarrgw/core/store"
)

// Get reads the value or the part r selects, with one pread of exactly
// that part; suffix ranges are resolved against the open file's size.
func (s *Store) Get(ctx context.Context, key string, r store.ByteRange) (store.Value, error) {
	if err := ctx.Err(); err != nil {
		return store.Value{}, fmt.Errorf("fs: get %q: %w", key, err)
	}
	if err := checkKey(key); err != nil {
		return store.Value{}, err
	}
	// O_NONBLOCK keeps a FIFO at the key's path from blocking the open; it
	// has no effect on regular files.
	fd, err := s.openat(key, unix.O_RDONLY|unix.O_NONBLOCK)
	if err != nil {
		return store.Value{}, readErr("get", key, err)
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return store.Value{}, readErr("get", key, err)
	}
	if err := checkMode(key, st.Mode); err != nil {
		return store.Value{}, err
	}
	start, end, err := r.Resolve(st.Size)
	if err != nil {
		return store.Value{}, fmt.Errorf("fs: get %q: %w", key, err)
	}
	data := make([]byte, end-start)
	if err := preadFull(fd, data, start); err != nil {
		return store.Value{}, fmt.Errorf("fs: get %q: %w", key, err)
	}
	return store.Value{Data: data, Version: versionOfStat(&st), ModTime: time.Unix(0, st.Mtim.Nano())}, nil
}

// preadFull fills buf from offset off. The file never changes once renamed
// into place, so a short read means someone else truncated it.
func preadFull(fd int, buf []byte, off int64) error {
	for len(buf) > 0 {
		n, err := unix.Pread(fd, buf, off)
		switch {
		case errors.Is(err, unix.EINTR):
			continue
		case err != nil:
			return err
		case n == 0:
			return io.ErrUnexpectedEOF
		}
		buf, off = buf[n:], off+int64(n)
	}
	return nil
}

// checkMode turns a directory into ErrNotFound (it holds keys, it is not
// one) and refuses anything else that is not a regular file.
func checkMode(key string, mode uint32) error {
	switch mode & unix.S_IFMT {
	case unix.S_IFREG:
		return nil
	case unix.S_IFDIR:
		return fmt.Errorf("fs: %q is a prefix, not a value: %w", key, store.ErrNotFound)
	}
	return fmt.Errorf("fs: %q: %w", key, errNotRegular)
}

// Stat returns the size and version of a value without reading it.
func (s *Store) Stat(ctx context.Context, key string) (store.Info, error) {
	if err := ctx.Err(); err != nil {
		return store.Info{}, fmt.Errorf("fs: stat %q: %w", key, err)
	}
	if err := checkKey(key); err != nil {
		return store.Info{}, err
	}
	fd, err := s.openat(key, unix.O_PATH)
	if err != nil {
		return store.Info{}, readErr("stat", key, err)
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return store.Info{}, readErr("stat", key, err)
	}
	if err := checkMode(key, st.Mode); err != nil {
		return store.Info{}, err
	}
	return store.Info{Size: st.Size, Version: versionOfStat(&st), ModTime: time.Unix(0, st.Mtim.Nano())}, nil
}
