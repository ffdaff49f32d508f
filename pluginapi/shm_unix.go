//go:build unix

package pluginapi

import (
	"fmt"
	"os"
	"syscall"
)

func mmapShared(fd, size int) ([]byte, error) {
	return syscall.Mmap(fd, 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED)
}

// mapShared maps the memory the host shares at path, which must be a
// regular file of size bytes.
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
	return mmapShared(int(f.Fd()), size)
}

func unmapShared(mem []byte) error { return syscall.Munmap(mem) }
