//go:build unix

package journal

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// tryLock takes the journal's lock (flock, exclusive) if no other process
// holds it. The kernel releases it when the file is closed or the process
// ends, killed or not: a dead run never leaves its journal locked.
func tryLock(f *os.File) (bool, error) {
	for {
		err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
		switch {
		case err == nil:
			return true, nil
		case errors.Is(err, unix.EWOULDBLOCK):
			return false, nil
		case !errors.Is(err, unix.EINTR):
			return false, err
		}
	}
}

// removeHeld removes the journal and then lets go of it: a run waiting
// for it finds it gone, as finished, rather than taking it over first.
func removeHeld(path string, f *os.File) error {
	err := os.Remove(path)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
