package fsstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"strconv"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"github.com/zarrgw/zarrgw/core/store"
)

// maxAttempts bounds the retries of a write whose directory was pruned or
// removed by a concurrent Erase or ErasePrefix.
const maxAttempts = 5

// errVanished marks a write whose directory disappeared under it; the
// write is retried from the start.
var errVanished = errors.New("directory removed concurrently")

// Set writes data atomically if cond holds and returns the new version.
func (s *Store) Set(ctx context.Context, key string, data []byte, cond store.Condition) (string, error) {
	if err := s.beginSet(ctx, key, cond); err != nil {
		return "", err
	}
	if s.test.inPlace {
		return s.writeInPlace(key, data)
	}
	var err error
	for range maxAttempts {
		var version string
		if version, err = s.setOnce(key, func(fd int) error { return s.fill(fd, data) }, cond); !errors.Is(err, errVanished) {
			return version, err
		}
	}
	return "", fmt.Errorf("fs: set %q: %w", key, err)
}

// SetFrom writes the bytes of r to a temporary file as they come and
// renames it into place once r ends, if cond holds: a value of any size
// costs a copy buffer. The condition is checked before r is read, and
// again, under the directory's lock, before the rename. A write whose
// directory a concurrent erase removed is tried again only if none of r
// was read yet: what was read cannot be read twice.
func (s *Store) SetFrom(ctx context.Context, key string, r io.Reader, cond store.Condition) (string, error) {
	if err := s.beginSet(ctx, key, cond); err != nil {
		return "", err
	}
	src := &store.CountingReader{R: r}
	var err error
	for range maxAttempts {
		var version string
		version, err = s.setOnce(key, func(fd int) error { return copyTo(ctx, fd, src) }, cond)
		if !errors.Is(err, errVanished) {
			return version, err
		}
		if src.N > 0 {
			return "", fmt.Errorf("fs: set %q: %w while its value was written", key, err)
		}
	}
	return "", fmt.Errorf("fs: set %q: %w", key, err)
}

// copyBuffers are the buffers SetFrom copies through.
var copyBuffers = sync.Pool{New: func() any { b := make([]byte, 256<<10); return &b }}

// copyTo writes what r holds to fd, stopping when ctx ends.
func copyTo(ctx context.Context, fd int, r io.Reader) error {
	bp := copyBuffers.Get().(*[]byte)
	defer copyBuffers.Put(bp)
	buf := *bp
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		n, err := r.Read(buf)
		if n > 0 {
			if werr := writeAll(fd, buf[:n]); werr != nil {
				return werr
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("reading the value: %w", err)
		}
	}
}

// beginSet checks a write before anything is written: its context, its
// key, and its condition. That early, unlocked check spares writing and
// fsyncing a value that would be refused; the check under the lock is the
// one that counts.
func (s *Store) beginSet(ctx context.Context, key string, cond store.Condition) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("fs: set %q: %w", key, err)
	}
	if err := checkKey(key); err != nil {
		return err
	}
	if cond == (store.Condition{}) {
		return nil
	}
	return s.precheck(ctx, key, cond)
}

func (s *Store) precheck(ctx context.Context, key string, cond store.Condition) error {
	info, err := s.Stat(ctx, key)
	exists := err == nil
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return err
	}
	if err := checkCondition(cond, exists, info.Version); err != nil {
		return fmt.Errorf("fs: set %q: %w", key, err)
	}
	return nil
}

// checkCondition returns an error wrapping ErrConflict unless cond holds.
func checkCondition(cond store.Condition, exists bool, current string) error {
	if cond.IfNoneMatch && exists {
		return fmt.Errorf("%w: key exists", store.ErrConflict)
	}
	if cond.IfMatch != "" && (!exists || current != cond.IfMatch) {
		return fmt.Errorf("%w: version is not %q", store.ErrConflict, cond.IfMatch)
	}
	return nil
}

// setOnce writes the value to a temporary file in the key's directory and
// commits it; the directory stays open throughout, so the lock, the rename
// and the directory fsync all act on the same directory.
func (s *Store) setOnce(key string, fill func(fd int) error, cond store.Condition) (string, error) {
	dir, base := splitKey(key)
	dfd, err := s.openDir(dir, true)
	if errors.Is(err, unix.ENOTDIR) {
		return "", fmt.Errorf("fs: set %q: %w: a key above it holds a value (a filesystem holds a value or keys below its name, not both)", key, store.ErrInvalidKey)
	}
	if err != nil {
		return "", fmt.Errorf("fs: set %q: %w", key, err)
	}
	defer unix.Close(dfd)
	if !s.test.noSweep {
		s.sweepOnce(dir, dfd)
	}
	tmp, tfd, err := s.writeTemp(dfd, fill)
	if err == nil {
		var version string
		version, err = s.commit(dfd, tmp, base, cond)
		unix.Close(tfd) // the temporary file's lock goes with it, once it is in place
		if err == nil {
			return version, s.syncDir(key, dfd)
		}
		_ = unix.Unlinkat(dfd, tmp, 0)
	}
	if errors.Is(err, unix.ENOENT) {
		return "", errVanished
	}
	_ = s.prune(dir) // do not leave a directory created for a failed write
	return "", fmt.Errorf("fs: set %q: %w", key, err)
}

// commit renames tmp over base if cond holds, under the directory lock.
func (s *Store) commit(dfd int, tmp, base string, cond store.Condition) (string, error) {
	unlock, err := s.lock(dfd)
	if err != nil {
		return "", err
	}
	defer unlock()
	var st unix.Stat_t
	exists, err := statAt(dfd, base, &st)
	if err != nil {
		return "", err
	}
	if exists && st.Mode&unix.S_IFMT == unix.S_IFDIR {
		return "", fmt.Errorf("%w: keys exist below this name (a filesystem holds a value or keys below its name, not both)", store.ErrInvalidKey)
	}
	current := ""
	if exists {
		current = versionOfStat(&st)
	}
	if err := checkCondition(cond, exists, current); err != nil {
		return "", err
	}
	if h := s.test.beforeCommit; h != nil {
		h()
	}
	if err := stampMtime(dfd, tmp, exists, &st); err != nil {
		return "", err
	}
	if err := unix.Renameat(dfd, tmp, dfd, base); err != nil {
		return "", fmt.Errorf("rename into place: %w", err)
	}
	if err := unix.Fstatat(dfd, base, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return "", fmt.Errorf("stat after rename: %w", err)
	}
	return versionOfStat(&st), nil
}

// statAt stats name in dfd without following a final symlink; a missing
// name is (false, nil).
func statAt(dfd int, name string, st *unix.Stat_t) (bool, error) {
	err := unix.Fstatat(dfd, name, st, unix.AT_SYMLINK_NOFOLLOW)
	if errors.Is(err, unix.ENOENT) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("stat: %w", err)
	}
	return true, nil
}

// stampMtime sets tmp's mtime to now, or just after the value it replaces
// if the clock is behind, so that the replacing version always differs
// even if the inode number is recycled and the size is the same.
func stampMtime(dfd int, tmp string, exists bool, old *unix.Stat_t) error {
	now := time.Now().UnixNano()
	if exists && old.Mtim.Nano() >= now {
		now = old.Mtim.Nano() + 1
	}
	ts := []unix.Timespec{{Nsec: unix.UTIME_OMIT}, unix.NsecToTimespec(now)}
	if err := unix.UtimesNanoAt(dfd, tmp, ts, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return fmt.Errorf("set mtime: %w", err)
	}
	return nil
}

func (s *Store) syncDir(key string, dfd int) error {
	if !s.dirSync {
		return nil
	}
	if err := unix.Fsync(dfd); err != nil {
		return fmt.Errorf("fs: set %q: sync directory: %w", key, err)
	}
	return nil
}

// writeTemp fills a new temporary file in dfd, fsyncs it and returns its
// name and its descriptor, open and locked until the caller has renamed
// it into place (the lock tells a sweep the file is in use).
func (s *Store) writeTemp(dfd int, fill func(fd int) error) (string, int, error) {
	const flags = unix.O_WRONLY | unix.O_CREAT | unix.O_EXCL | unix.O_CLOEXEC | unix.O_NOFOLLOW
	for range maxAttempts {
		name := tempPrefix + strconv.FormatUint(rand.Uint64(), 16)
		fd, err := unix.Openat(dfd, name, flags, 0o666)
		if errors.Is(err, unix.EEXIST) {
			continue
		}
		if err != nil {
			return "", -1, fmt.Errorf("create temporary file: %w", err)
		}
		err = lockTemp(fd)
		if err == nil {
			err = fill(fd)
		}
		if err == nil {
			err = fsync(fd)
		}
		if err != nil {
			unix.Close(fd)
			_ = unix.Unlinkat(dfd, name, 0)
			return "", -1, fmt.Errorf("write temporary file: %w", err)
		}
		return name, fd, nil
	}
	return "", -1, fmt.Errorf("create temporary file: names keep colliding")
}

// fill writes data to fd, calling the mid-write test hook half way.
func (s *Store) fill(fd int, data []byte) error {
	if h := s.test.midWrite; h != nil {
		half := len(data) / 2
		if err := writeAll(fd, data[:half]); err != nil {
			return err
		}
		h()
		data = data[half:]
	}
	return writeAll(fd, data)
}

func writeAll(fd int, data []byte) error {
	for len(data) > 0 {
		n, err := unix.Write(fd, data)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return err
		}
		data = data[n:]
	}
	return nil
}

func fsync(fd int) error {
	for {
		if err := unix.Fsync(fd); !errors.Is(err, unix.EINTR) {
			return err
		}
	}
}

// lock takes an exclusive flock on the directory. flock belongs to the open
// file description, so it excludes other goroutines (each opens the
// directory itself) as well as other processes.
func (s *Store) lock(dfd int) (unlock func(), err error) {
	if s.test.noLock {
		return func() {}, nil
	}
	for {
		err = unix.Flock(dfd, unix.LOCK_EX)
		if !errors.Is(err, unix.EINTR) {
			break
		}
	}
	if err != nil {
		return nil, fmt.Errorf("lock directory: %w", err)
	}
	return func() { _ = unix.Flock(dfd, unix.LOCK_UN) }, nil
}

// writeInPlace is the unsafe write the atomic path replaces; tests use it
// to show that readers then see torn values.
func (s *Store) writeInPlace(key string, data []byte) (string, error) {
	dir, _ := splitKey(key)
	dfd, err := s.openDir(dir, true)
	if err != nil {
		return "", err
	}
	unix.Close(dfd)
	f, err := s.root.OpenFile(key, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o666)
	if err != nil {
		return "", err
	}
	defer f.Close()
	if err := s.fill(int(f.Fd()), data); err != nil {
		return "", err
	}
	var st unix.Stat_t
	if err := unix.Fstat(int(f.Fd()), &st); err != nil {
		return "", err
	}
	return versionOfStat(&st), nil
}
