// Package fs is the filesystem store: key "a/b" is the file <root>/a/b.
//
// The store is built for Linux (openat2, flock). Its guarantees:
//
//   - Keys never leave the root. Keys are checked with store.ValidateKey,
//     and every path is resolved beneath the root by the kernel (openat2
//     with RESOLVE_BENEATH) or, where that is missing, by os.Root: ".."
//     and symlinks that point outside the root are refused (an error,
//     never ErrNotFound). Symlinks that stay inside the root are followed
//     on reads; a write replaces the link itself, so a conditional write
//     to a key that is a link never matches the version read through it.
//     Listing reports regular files and real directories only, so it
//     never follows a link into a cycle.
//   - Writes are atomic: the value goes to a temporary file in the target's
//     directory (".zarrgw-tmp-<random>", never listed), which is fsynced
//     and renamed over the target; the directory is fsynced afterwards
//     unless WithDirSync(false). Readers see the old or the new value whole.
//     A writer that dies before the rename leaves its temporary file; the
//     next process to write into that directory removes it (temps.go).
//   - Versions are "<inode>-<size>-<mtime ns>" in hex. Every write renames
//     a fresh inode into place and stamps its mtime, under the directory
//     lock, to a clock reading later than the previous version's, so a
//     recycled inode number cannot bring an old version back. The
//     filesystem must keep nanosecond mtimes (ext4, xfs, btrfs, tmpfs do).
//   - Conditional writes are safe across goroutines and processes on one
//     host: every mutation takes an exclusive flock on the key's parent
//     directory, re-checks the version under it, then renames. Network
//     filesystems whose flock is not coherent across hosts get no such
//     guarantee.
//   - Erase prunes directories left empty, up to the root, so ListDir does
//     not report prefixes without keys. ErasePrefix is not atomic with
//     respect to writers inside the prefix.
//
// Segments starting with ".zarrgw-" are reserved for the store's own files
// and rejected as keys.
package fsstore

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"

	"github.com/zarrgw/zarrgw/core/store"
)

// Name is the store's registered name.
const Name = "fs"

// Store is a filesystem store rooted at one directory.
type Store struct {
	store.NoOptional          // for the listings in order, which it walks
	root             *os.Root // resolves paths where openat2 is unavailable
	rootFD           int      // the root directory, for openat2
	openat2          bool     // whether the kernel resolves paths beneath rootFD
	path             string
	dirSync          bool
	sweeper          sweeper
	test             testHooks
}

// testHooks let tests widen race windows and switch off safety mechanisms
// to prove that the tests detect their absence. They are zero in
// production.
type testHooks struct {
	beforeCommit func() // between the version check and the rename
	midWrite     func() // between the two halves of a value's bytes
	noLock       bool   // skip the directory lock
	noSweep      bool   // leave stale temporary files where they are
	inPlace      bool   // truncate and write the target itself
}

var _ store.Store = (*Store)(nil)

// Option configures New.
type Option func(*Store)

// WithDirSync sets whether a write fsyncs the directory after renaming the
// value into place (default on). Without it a crash may lose a write that
// was already reported done, though never tear it.
func WithDirSync(on bool) Option { return func(s *Store) { s.dirSync = on } }

// New opens the store rooted at dir, creating the directory if needed.
func New(dir string, opts ...Option) (*Store, error) {
	if dir == "" {
		return nil, fmt.Errorf("fs: empty root directory")
	}
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return nil, fmt.Errorf("fs: create root: %w", err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("fs: open root: %w", err)
	}
	s := &Store{root: root, path: dir, dirSync: true}
	if err := s.openRoot(dir); err != nil {
		root.Close()
		return nil, err
	}
	for _, opt := range opts {
		opt(s)
	}
	return s, nil
}

// Root returns the directory the store was opened on.
func (s *Store) Root() string { return s.path }

// Capabilities reports every capability.
func (s *Store) Capabilities() store.Capabilities {
	return store.Capabilities{Read: true, Write: true, Erase: true, List: true,
		Ranges: true, SuffixRanges: true, ConditionalWrite: true,
		Optional: store.Optional{Into: true, File: true}}
}

// Close releases the root directory.
func (s *Store) Close() error {
	err := errors.Join(s.root.Close(), unix.Close(s.rootFD))
	if err != nil {
		return fmt.Errorf("fs: close %s: %w", s.path, err)
	}
	return nil
}
