package ndarray

import "golang.org/x/sys/unix"

// adviseHugePages asks for transparent huge pages (where the system's
// setting is "madvise", as it commonly is); it is advice, and a kernel
// that declines it leaves ordinary pages.
func adviseHugePages(b []byte) {
	_ = unix.Madvise(b, unix.MADV_HUGEPAGE)
}
