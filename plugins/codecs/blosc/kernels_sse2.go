//go:build amd64 && !purego

package blosc

import "unsafe"

// SSE2 versions of the shuffle kernels (SSE2 is part of every amd64 CPU,
// so no feature check is needed). Each call handles e/16 groups of 16
// elements and reports how many elements it did; slicing every plane to e
// bytes and the interleaved side to ts*e bytes first is the bounds proof
// for the assembly.

//go:noescape
func interleave2SSE2(p0, p1, dst unsafe.Pointer, groups int)

//go:noescape
func deinterleave2SSE2(src, p0, p1 unsafe.Pointer, groups int)

//go:noescape
func interleave4SSE2(p0, p1, p2, p3, dst unsafe.Pointer, groups int)

//go:noescape
func deinterleave4SSE2(src, p0, p1, p2, p3 unsafe.Pointer, groups int)

//go:noescape
func interleave8SSE2(planes *[8]unsafe.Pointer, dst unsafe.Pointer, groups int)

//go:noescape
func deinterleave8SSE2(src unsafe.Pointer, planes *[8]unsafe.Pointer, groups int)

func interleave2(p0, p1, dst []byte, e int) int {
	p0, p1, dst = p0[:e], p1[:e], dst[:2*e]
	if g := e / 16; g > 0 {
		interleave2SSE2(ptr(p0), ptr(p1), ptr(dst), g)
	}
	return e / 16 * 16
}

func deinterleave2(src, p0, p1 []byte, e int) int {
	src, p0, p1 = src[:2*e], p0[:e], p1[:e]
	if g := e / 16; g > 0 {
		deinterleave2SSE2(ptr(src), ptr(p0), ptr(p1), g)
	}
	return e / 16 * 16
}

func interleave4(p0, p1, p2, p3, dst []byte, e int) int {
	p0, p1, p2, p3, dst = p0[:e], p1[:e], p2[:e], p3[:e], dst[:4*e]
	if g := e / 16; g > 0 {
		interleave4SSE2(ptr(p0), ptr(p1), ptr(p2), ptr(p3), ptr(dst), g)
	}
	return e / 16 * 16
}

func deinterleave4(src, p0, p1, p2, p3 []byte, e int) int {
	src, p0, p1, p2, p3 = src[:4*e], p0[:e], p1[:e], p2[:e], p3[:e]
	if g := e / 16; g > 0 {
		deinterleave4SSE2(ptr(src), ptr(p0), ptr(p1), ptr(p2), ptr(p3), g)
	}
	return e / 16 * 16
}

func interleave8(ps [][]byte, dst []byte, e int) int {
	planes, d := plane8(ps, e), ptr(dst[:8*e])
	if g := e / 16; g > 0 {
		interleave8SSE2(&planes, d, g)
	}
	return e / 16 * 16
}

func deinterleave8(src []byte, ps [][]byte, e int) int {
	planes, s := plane8(ps, e), ptr(src[:8*e])
	if g := e / 16; g > 0 {
		deinterleave8SSE2(s, &planes, g)
	}
	return e / 16 * 16
}

//go:noescape
func bitTransposeSSE2(p, r unsafe.Pointer, rowLen, chunks int)

//go:noescape
func bitUntransposeSSE2(r, p unsafe.Pointer, rowLen, chunks int)

// bitTransposeFast runs the bit transpose of a plane 16 groups (128
// bytes) at a time, the SWAR algorithm on both halves of SSE2 registers,
// and returns the number of groups done. len(r) == len(p).
func bitTransposeFast(p, r []byte) int {
	rl := len(p) / 8
	if n := rl / 16; n > 0 {
		bitTransposeSSE2(ptr(p[:8*rl]), ptr(r[:8*rl]), rl, n)
	}
	return rl / 16 * 16
}

// bitUntransposeFast is the inverse of bitTransposeFast.
func bitUntransposeFast(r, p []byte) int {
	rl := len(r) / 8
	if n := rl / 16; n > 0 {
		bitUntransposeSSE2(ptr(r[:8*rl]), ptr(p[:8*rl]), rl, n)
	}
	return rl / 16 * 16
}
