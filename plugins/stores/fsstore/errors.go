package fsstore

import (
	"errors"
	"fmt"

	"golang.org/x/sys/unix"

	"github.com/zarrgw/zarrgw/core/store"
)

// isMissing reports whether err means a path does not exist: ENOENT, or
// ENOTDIR when a path component is a file (key "a/b/c" with value "a/b").
func isMissing(err error) bool {
	return errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ENOTDIR)
}

// readErr wraps a read failure; only a missing path becomes ErrNotFound,
// so permission and I/O errors never turn into fill values.
func readErr(op, key string, err error) error {
	if isMissing(err) {
		return fmt.Errorf("fs: %s %q: %w", op, key, store.ErrNotFound)
	}
	return fmt.Errorf("fs: %s %q: %w", op, key, err)
}

// errNotRegular is a key naming a FIFO, socket or device: present but not
// a value this store wrote, and not safe to read.
var errNotRegular = errors.New("not a regular file")
