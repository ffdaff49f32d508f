package fsstore

import (
	"errors"
	"os"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
)

// tempPrefix starts the name of every temporary file a write makes.
const tempPrefix = reserved + "tmp-"

// maxSwept bounds the directories a process remembers having swept; past
// it the record starts again (a directory is then swept once more).
const maxSwept = 1 << 16

// Temporary files of a writer that died between creating its temporary
// file and renaming it into place (a killed process, a lost machine)
// would stay in the user's dataset forever. A writer holds an exclusive
// flock on its temporary file from just after creating it until the file
// has been renamed into place, and the kernel drops that lock when the
// process ends, however it ends. So a temporary file whose lock can be
// taken belongs to no running writer, and the first write of a process
// into a directory removes the ones it finds there. A resumed copy
// writes again into the directories of the values it had in flight, so
// it clears what its killed runs left.
//
// The one race is benign: a sweep can take the lock of a file created an
// instant before, in the moment before its writer locks it; the writer's
// rename then finds no file (ENOENT) and the write starts afresh, as it
// does when a concurrent Erase removes its directory.
type sweeper struct {
	mu    sync.Mutex
	swept map[string]bool // directories swept by this process
}

// sweepOnce removes the stale temporary files in dir (open as dfd) the
// first time this process writes there. Failures are ignored: a sweep is
// housekeeping, never a reason to fail the write that triggered it.
func (s *Store) sweepOnce(dir string, dfd int) {
	w := &s.sweeper
	w.mu.Lock()
	if w.swept[dir] {
		w.mu.Unlock()
		return
	}
	if w.swept == nil || len(w.swept) >= maxSwept {
		w.swept = map[string]bool{}
	}
	w.swept[dir] = true
	w.mu.Unlock()
	sweepDir(dfd)
}

// sweepDir removes every unlocked temporary file in the directory dfd.
func sweepDir(dfd int) {
	dup, err := unix.FcntlInt(uintptr(dfd), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return
	}
	d := os.NewFile(uintptr(dup), "sweep")
	defer d.Close()
	for {
		names, err := d.Readdirnames(1024)
		for _, name := range names {
			if strings.HasPrefix(name, tempPrefix) {
				removeIfStale(dfd, name)
			}
		}
		if err != nil {
			return
		}
	}
}

// removeIfStale removes the temporary file name in dfd if no process holds
// its lock, and only if the name still refers to the file it locked.
func removeIfStale(dfd int, name string) {
	fd, err := unix.Openat(dfd, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return // renamed into place meanwhile, or not a regular file
	}
	defer unix.Close(fd)
	if err := unix.Flock(fd, unix.LOCK_EX|unix.LOCK_NB); err != nil {
		return // its writer is alive (EWOULDBLOCK)
	}
	var held, named unix.Stat_t
	if unix.Fstat(fd, &held) != nil || unix.Fstatat(dfd, name, &named, unix.AT_SYMLINK_NOFOLLOW) != nil {
		return
	}
	if held.Dev == named.Dev && held.Ino == named.Ino {
		_ = unix.Unlinkat(dfd, name, 0)
	}
}

// lockTemp takes the writer's lock on its new temporary file (see
// sweeper); it is held until the file descriptor is closed.
func lockTemp(fd int) error {
	for {
		err := unix.Flock(fd, unix.LOCK_EX)
		if !errors.Is(err, unix.EINTR) {
			return err
		}
	}
}
