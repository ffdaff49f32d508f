package fs

import (
	"context"
	"fmt"
	"io"
	"os"

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
	// has no effect on regular files (and spares os two fcntl calls).
	f, err := s.root.OpenFile(key, os.O_RDONLY|unix.O_NONBLOCK, 0)
	if err != nil {
		return store.Value{}, readErr("get", key, err)
	}
	defer f.Close()
	var st unix.Stat_t
	if err := unix.Fstat(int(f.Fd()), &st); err != nil {
		return store.Value{}, readErr("get", key, err)
	}
	if err := checkMode(key, uint32(st.Mode)); err != nil {
		return store.Value{}, err
	}
	start, end, err := r.Resolve(st.Size)
	if err != nil {
		return store.Value{}, fmt.Errorf("fs: get %q: %w", key, err)
	}
	data := make([]byte, end-start)
	if n, err := f.ReadAt(data, start); n < len(data) {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF // the file shrank under us
		}
		return store.Value{}, fmt.Errorf("fs: get %q: %w", key, err)
	}
	return store.Value{Data: data, Version: versionOfStat(&st)}, nil
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

// Stat returns the size and version of a value without opening it.
func (s *Store) Stat(ctx context.Context, key string) (store.Info, error) {
	if err := ctx.Err(); err != nil {
		return store.Info{}, fmt.Errorf("fs: stat %q: %w", key, err)
	}
	if err := checkKey(key); err != nil {
		return store.Info{}, err
	}
	fi, err := s.root.Stat(key)
	if err != nil {
		return store.Info{}, readErr("stat", key, err)
	}
	switch {
	case fi.IsDir():
		return store.Info{}, fmt.Errorf("fs: %q is a prefix, not a value: %w", key, store.ErrNotFound)
	case !fi.Mode().IsRegular():
		return store.Info{}, fmt.Errorf("fs: %q: %w", key, errNotRegular)
	}
	return store.Info{Size: fi.Size(), Version: versionOfInfo(fi)}, nil
}
