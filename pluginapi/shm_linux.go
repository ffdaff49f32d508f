package pluginapi

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// createShared makes size bytes of anonymous shared memory (a memfd: no
// name in any filesystem, not bound by the size of /dev/shm) and maps it.
// The plugin opens it through /proc/<host>/fd/<fd>, which only processes
// allowed to inspect the host can; done closes the descriptor once the
// plugin has mapped it, after which nothing can open it again.
func createShared(size int) (path string, mem []byte, done func(), err error) {
	fd, err := unix.MemfdCreate(fmt.Sprintf("zarrgw-arena-%d", os.Getpid()), unix.MFD_CLOEXEC)
	if err != nil {
		return "", nil, nil, err
	}
	if err = unix.Ftruncate(fd, int64(size)); err == nil {
		mem, err = mmapShared(fd, size)
	}
	if err != nil {
		unix.Close(fd)
		return "", nil, nil, err
	}
	return fmt.Sprintf("/proc/%d/fd/%d", os.Getpid(), fd), mem, func() { unix.Close(fd) }, nil
}

// trimShared gives the pages of mem, a part of an arena, back to the
// system: the memfd's pages are freed (MADV_REMOVE punches a hole in it),
// and both processes read zeros there until it is written again.
func trimShared(mem []byte) error { return unix.Madvise(mem, unix.MADV_REMOVE) }
