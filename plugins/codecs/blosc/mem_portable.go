//go:build !amd64 && !arm64

package blosc

import (
	"encoding/binary"
	"unsafe"
)

// Portable versions of the kernel loads and stores: byte-wise little-endian
// access, correct on big-endian and alignment-strict machines.

func bytesAt(p unsafe.Pointer, off uintptr, n int) []byte {
	return unsafe.Slice((*byte)(unsafe.Add(p, off)), n)
}

func load64(p unsafe.Pointer, off uintptr) uint64 {
	return binary.LittleEndian.Uint64(bytesAt(p, off, 8))
}

func load32(p unsafe.Pointer, off uintptr) uint32 {
	return binary.LittleEndian.Uint32(bytesAt(p, off, 4))
}

func store64(p unsafe.Pointer, off uintptr, v uint64) {
	binary.LittleEndian.PutUint64(bytesAt(p, off, 8), v)
}

func store32(p unsafe.Pointer, off uintptr, v uint32) {
	binary.LittleEndian.PutUint32(bytesAt(p, off, 4), v)
}
