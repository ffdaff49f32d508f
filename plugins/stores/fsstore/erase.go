package fsstore

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/zarrgw/zarrgw/core/store"
)

// Erase removes a key under its directory's lock (so it cannot slip
// between a conditional write's check and its rename), then prunes the
// directories it left empty. A missing key is not an error.
func (s *Store) Erase(ctx context.Context, key string) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("fs: erase %q: %w", key, err)
	}
	if err := checkKey(key); err != nil {
		return err
	}
	dir, base := splitKey(key)
	removed, err := s.unlink(dir, base)
	if err != nil {
		return fmt.Errorf("fs: erase %q: %w", key, err)
	}
	if !removed {
		return nil
	}
	if err := s.prune(dir); err != nil {
		return fmt.Errorf("fs: erase %q: %w", key, err)
	}
	return nil
}

// EraseMany erases each key as Erase does, several at once: a directory
// has no batch delete, and each key takes its directory's lock.
func (s *Store) EraseMany(ctx context.Context, keys []string) error {
	return store.EraseEach(ctx, s, keys, 0)
}

// unlink removes base from dir and reports whether there was a value.
func (s *Store) unlink(dir, base string) (bool, error) {
	dfd, err := s.openDir(dir, false)
	if isMissing(err) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	defer unix.Close(dfd)
	unlock, err := s.lock(dfd)
	if err != nil {
		return false, err
	}
	defer unlock()
	err = unix.Unlinkat(dfd, base, 0)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, unix.ENOENT), errors.Is(err, unix.EISDIR):
		return false, nil // missing, or a prefix rather than a value
	}
	return false, err
}

// prune removes dir and its ancestors while they are empty, stopping at
// the root. rmdir (never unlink) makes it safe against concurrent writers:
// a directory holding anything, even a temporary file, stays.
func (s *Store) prune(dir string) error {
	for dir != "" {
		parent, name := splitKey(dir)
		pfd, err := s.openDir(parent, false)
		if isMissing(err) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("prune %q: %w", dir, err)
		}
		err = unix.Unlinkat(pfd, name, unix.AT_REMOVEDIR)
		unix.Close(pfd)
		switch {
		case errors.Is(err, unix.ENOTEMPTY), errors.Is(err, unix.EEXIST), isMissing(err):
			return nil
		case err != nil:
			return fmt.Errorf("prune %q: %w", dir, err)
		}
		dir = parent
	}
	return nil
}

// ErasePrefix removes every key under prefix ("" erases everything but
// the store's own in-flight temporary files at the top level).
func (s *Store) ErasePrefix(ctx context.Context, prefix string) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("fs: erase prefix %q: %w", prefix, err)
	}
	if err := checkPrefix(prefix); err != nil {
		return err
	}
	dir := strings.TrimSuffix(prefix, "/")
	if dir == "" {
		return s.eraseAll()
	}
	fi, err := s.root.Lstat(dir)
	if isMissing(err) || (err == nil && !fi.IsDir()) {
		return nil // nothing under it; a value of that name is not in the prefix
	}
	if err == nil {
		err = s.root.RemoveAll(dir)
	}
	if err == nil {
		parent, _ := splitKey(dir)
		err = s.prune(parent)
	}
	if err != nil {
		return fmt.Errorf("fs: erase prefix %q: %w", prefix, err)
	}
	return nil
}

func (s *Store) eraseAll() error {
	d, err := s.openDirFile("")
	if err != nil {
		return fmt.Errorf("fs: erase all: %w", err)
	}
	defer d.Close()
	names, err := d.Readdirnames(-1)
	if err != nil {
		return fmt.Errorf("fs: erase all: %w", err)
	}
	for _, name := range names {
		if strings.HasPrefix(name, reserved) {
			continue
		}
		if err := s.root.RemoveAll(name); err != nil {
			return fmt.Errorf("fs: erase all: %w", err)
		}
	}
	return nil
}
