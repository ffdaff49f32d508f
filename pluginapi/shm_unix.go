//go:build unix

package pluginapi

import (
	"fmt"
	"os"
	"syscall"
)

// createShared creates a file of size bytes in shared memory (tmpfs where
// there is one, so it never touches a disk), readable by this user only,
// and maps it. The caller removes the file once the plugin has mapped it.
func createShared(size int) (path string, mem []byte, err error) {
	dir := os.TempDir()
	if st, err := os.Stat("/dev/shm"); err == nil && st.IsDir() {
		dir = "/dev/shm"
	}
	f, err := os.CreateTemp(dir, "zarrgw-arena-*")
	if err != nil {
		return "", nil, err
	}
	defer f.Close()
	if err = f.Truncate(int64(size)); err == nil {
		mem, err = syscall.Mmap(int(f.Fd()), 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED)
	}
	if err != nil {
		os.Remove(f.Name())
		return "", nil, err
	}
	return f.Name(), mem, nil
}

// mapShared maps the file the host created, which must be size bytes.
func mapShared(path string, size int) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if st.Size() != int64(size) || !st.Mode().IsRegular() {
		return nil, fmt.Errorf("arena %s is not a regular file of %d bytes", path, size)
	}
	return syscall.Mmap(int(f.Fd()), 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED)
}

func unmapShared(mem []byte) error { return syscall.Munmap(mem) }
