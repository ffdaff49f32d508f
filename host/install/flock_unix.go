//go:build unix

package install

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// lockFile takes an exclusive lock on the file at path (created if need
// be), calling waiting first when someone else holds it and then waiting
// for them, and returns its release. The lock is the kernel's (flock): it
// ends with the process, so a crashed install never leaves a cache locked.
func lockFile(path string, waiting func()) (func(), error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	fd := int(f.Fd())
	err = flock(fd, unix.LOCK_EX|unix.LOCK_NB)
	if errors.Is(err, unix.EWOULDBLOCK) {
		waiting()
		err = flock(fd, unix.LOCK_EX)
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	return func() {
		unix.Flock(fd, unix.LOCK_UN)
		f.Close()
	}, nil
}

// flock is unix.Flock, again when a signal interrupts it.
func flock(fd, how int) error {
	for {
		if err := unix.Flock(fd, how); err != unix.EINTR {
			return err
		}
	}
}
