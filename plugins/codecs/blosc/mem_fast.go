//go:build amd64 || arm64

package blosc

import "unsafe"

// Unaligned little-endian loads and stores at p+off for the shuffle
// kernels. These architectures are little-endian and allow unaligned
// access, so a plain load does it; the kernels check every range against
// their slices before the loop, which is what lets them skip Go's per-access
// bounds checks (worth about 1.5x on the shuffle loops).

func load64(p unsafe.Pointer, off uintptr) uint64 { return *(*uint64)(unsafe.Add(p, off)) }

func load32(p unsafe.Pointer, off uintptr) uint32 { return *(*uint32)(unsafe.Add(p, off)) }

func store64(p unsafe.Pointer, off uintptr, v uint64) { *(*uint64)(unsafe.Add(p, off)) = v }

func store32(p unsafe.Pointer, off uintptr, v uint32) { *(*uint32)(unsafe.Add(p, off)) = v }
