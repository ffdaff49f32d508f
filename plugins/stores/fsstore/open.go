package fsstore

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// beneath confines openat2 to the root: no "..", no absolute symlink and
// no symlink that resolves outside it, no /proc magic links.
const beneath = unix.RESOLVE_BENEATH | unix.RESOLVE_NO_MAGICLINKS

// errEscapes replaces openat2's EXDEV, whose own text ("invalid
// cross-device link") would mislead.
var errEscapes = errors.New("path leaves the store root")

// openRoot opens the descriptor that paths are resolved beneath and finds
// out whether the kernel resolves them itself (openat2, Linux 5.6+): one
// system call instead of one per path segment.
func (s *Store) openRoot(dir string) error {
	fd, err := unix.Open(dir, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("fs: open root %s: %w", dir, err)
	}
	s.rootFD = fd
	probe, err := unix.Openat2(fd, ".", &unix.OpenHow{Flags: unix.O_PATH | unix.O_CLOEXEC, Resolve: beneath})
	if err == nil {
		unix.Close(probe)
		s.openat2 = true
	}
	return nil
}

// openat opens rel (a key, or a directory; "." is the root) beneath the
// root and returns a raw descriptor, sparing the os.File machinery on the
// read path.
func (s *Store) openat(rel string, flags int) (int, error) {
	flags |= unix.O_CLOEXEC
	if !s.openat2 {
		return s.openInRoot(rel, flags)
	}
	how := unix.OpenHow{Flags: uint64(flags), Resolve: beneath}
	for {
		fd, err := unix.Openat2(s.rootFD, rel, &how)
		switch {
		case errors.Is(err, unix.EAGAIN), errors.Is(err, unix.EINTR):
			continue // a concurrent rename made the kernel give up; retry
		case errors.Is(err, unix.EXDEV):
			return -1, errEscapes
		}
		return fd, err
	}
}

// openInRoot is the fallback for kernels or sandboxes without openat2:
// os.Root walks the path a segment at a time with the same confinement.
func (s *Store) openInRoot(rel string, flags int) (int, error) {
	if flags&unix.O_PATH != 0 {
		// os.Root handles symlinks by their ELOOP, which O_PATH suppresses.
		flags = flags&^unix.O_PATH | unix.O_RDONLY | unix.O_NONBLOCK
	}
	f, err := s.root.OpenFile(rel, flags, 0)
	if err != nil {
		return -1, err
	}
	defer f.Close()
	return unix.FcntlInt(f.Fd(), unix.F_DUPFD_CLOEXEC, 0)
}

// openDir opens a directory of the store ("" is the root), creating it
// and its parents if create is set. A directory pruned by a concurrent
// Erase between creation and opening is created again.
func (s *Store) openDir(dir string, create bool) (int, error) {
	name := rootName(dir)
	for range maxAttempts {
		fd, err := s.openat(name, unix.O_RDONLY|unix.O_DIRECTORY)
		if err == nil || !create || !errors.Is(err, unix.ENOENT) {
			return fd, err
		}
		if err := s.root.MkdirAll(name, 0o777); err != nil && !errors.Is(err, unix.ENOENT) {
			return -1, err
		}
	}
	return -1, fmt.Errorf("open directory %q: %w", dir, errVanished)
}

// openDirFile is openDir for listing, which wants os.File's ReadDir.
func (s *Store) openDirFile(dir string) (*os.File, error) {
	fd, err := s.openDir(dir, false)
	if err != nil {
		return nil, err
	}
	return os.NewFile(uintptr(fd), rootName(dir)), nil
}
