package ndarray

import "unsafe"

// hugePage is the size of a transparent huge page on the platforms that
// have them.
const hugePage = 2 << 20

// largeBuffer is the size from which element buffers are placed on huge
// pages: first touching memory costs a page fault per 4 KiB page, which on
// virtual machines is 10-20 µs each (measured: a fresh 256 MiB buffer takes
// about 1 s to touch in 4 KiB pages and 40-80 ms in 2 MiB ones), more than
// decoding the data that lands there.
const largeBuffer = 4 << 20

// newBytes returns n zeroed bytes; large buffers start at a huge-page
// boundary and ask the kernel to back them with huge pages.
func newBytes(n int) []byte {
	if n < largeBuffer {
		return make([]byte, n)
	}
	b := make([]byte, n+hugePage)
	off := hugePage - int(addressOf(b)%hugePage)
	if off == hugePage {
		off = 0
	}
	b = b[off : off+n : off+n]
	adviseHugePages(b)
	return b
}

func addressOf(b []byte) uintptr { return uintptr(unsafe.Pointer(unsafe.SliceData(b))) }
