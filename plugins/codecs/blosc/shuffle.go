package blosc

import (
	"encoding/binary"
	"unsafe"
)

// Byte shuffle: a buffer of e elements of ts bytes is rewritten as ts
// planes of e bytes, plane j holding byte j of every element; the n % ts
// trailing bytes are copied unchanged. Type sizes 2, 4 and 8 have kernels
// that move 8 or 16 elements at a time: SSE2 assembly on amd64
// (kernels_sse2*), 64-bit SWAR elsewhere (shuffle_swar.go); they beat byte
// loops by 4x (SWAR) to 15x (SSE2).

// shuffle writes the byte planes of src to dst (same length).
func shuffle(ts int, src, dst []byte) {
	e := len(src) / ts
	if ts == 1 || ts > maxSplits {
		shuffleGeneric(ts, src, dst, e)
	} else {
		var arr [maxSplits][]byte
		deinterleave(src, e, planeSlices(dst, ts, e, &arr))
	}
	copy(dst[ts*e:], src[ts*e:])
}

// unshuffle is the inverse of shuffle.
func unshuffle(ts int, src, dst []byte) {
	e := len(src) / ts
	if ts == 1 || ts > maxSplits {
		unshuffleGeneric(ts, src, dst, e)
	} else {
		var arr [maxSplits][]byte
		interleave(planeSlices(src, ts, e, &arr), e, dst)
	}
	copy(dst[ts*e:], src[ts*e:])
}

// planesOf cuts the ts planes of e bytes out of b into ps.
func planesOf(b []byte, ts, e int, ps [][]byte) [][]byte {
	for j := range ts {
		ps[j] = b[j*e : (j+1)*e]
	}
	return ps
}

// interleave writes element i of the output as byte j = planes[j][i], for
// e elements of len(planes) bytes. The planes need not be adjacent: a
// decoder passes stored-raw planes straight from the frame.
func interleave(planes [][]byte, e int, dst []byte) {
	done := 0
	switch len(planes) {
	case 2:
		done = interleave2(planes[0], planes[1], dst, e)
	case 4:
		done = interleave4(planes[0], planes[1], planes[2], planes[3], dst, e)
	case 8:
		done = interleave8(planes, dst, e)
	}
	ts := len(planes)
	for j, p := range planes {
		for i := done; i < e; i++ {
			dst[i*ts+j] = p[i]
		}
	}
}

// deinterleave is the inverse of interleave.
func deinterleave(src []byte, e int, planes [][]byte) {
	done := 0
	switch len(planes) {
	case 2:
		done = deinterleave2(src, planes[0], planes[1], e)
	case 4:
		done = deinterleave4(src, planes[0], planes[1], planes[2], planes[3], e)
	case 8:
		done = deinterleave8(src, planes, e)
	}
	ts := len(planes)
	for j, p := range planes {
		for i := done; i < e; i++ {
			p[i] = src[i*ts+j]
		}
	}
}

// shuffleGeneric and unshuffleGeneric handle any type size on contiguous
// buffers.
func shuffleGeneric(ts int, src, dst []byte, e int) {
	for j := range ts {
		plane := dst[j*e : (j+1)*e]
		for i := range plane {
			plane[i] = src[i*ts+j]
		}
	}
}

func unshuffleGeneric(ts int, src, dst []byte, e int) {
	for j := range ts {
		plane := src[j*e : (j+1)*e]
		for i, v := range plane {
			dst[i*ts+j] = v
		}
	}
}

// Masks that select every other byte, 16-bit or 32-bit lane.
const (
	lanes8  = 0x00FF00FF00FF00FF
	lanes16 = 0x0000FFFF0000FFFF
	lanes32 = 0x00000000FFFFFFFF
)

// spread8 moves the four bytes of x (< 2^32) to the even byte lanes.
func spread8(x uint64) uint64 {
	x = (x | x<<16) & lanes16
	return (x | x<<8) & lanes8
}

// compact8 is the inverse of spread8: even byte lanes to the low 4 bytes.
func compact8(x uint64) uint64 {
	x &= lanes8
	x = (x | x>>8) & lanes16
	return (x | x>>16) & lanes32
}

// spread16 moves the two 16-bit halves of x (< 2^32) to even 16-bit lanes.
func spread16(x uint64) uint64 { return (x | x<<16) & lanes16 }

// compact16 is the inverse of spread16.
func compact16(x uint64) uint64 {
	x &= lanes16
	return (x | x>>16) & lanes32
}

func le64(b []byte) uint64       { return binary.LittleEndian.Uint64(b) }
func putLE64(b []byte, v uint64) { binary.LittleEndian.PutUint64(b, v) }

// ptr is the address of b's first element (nil when b is empty; the
// kernels touch no memory then).
func ptr(b []byte) unsafe.Pointer { return unsafe.Pointer(unsafe.SliceData(b)) }

// transposeBytes transposes the 8x8 byte matrix whose row r is word r
// (byte c of the word = column c): afterwards byte c of word r holds what
// byte r of word c held. Three rounds of block swaps (4x4, 2x2, 1x1).
func transposeBytes(x0, x1, x2, x3, x4, x5, x6, x7 uint64) (uint64, uint64, uint64, uint64, uint64, uint64, uint64, uint64) {
	x0, x4 = swapLanes(x0, x4, 32, lanes32)
	x1, x5 = swapLanes(x1, x5, 32, lanes32)
	x2, x6 = swapLanes(x2, x6, 32, lanes32)
	x3, x7 = swapLanes(x3, x7, 32, lanes32)
	x0, x2 = swapLanes(x0, x2, 16, lanes16)
	x1, x3 = swapLanes(x1, x3, 16, lanes16)
	x4, x6 = swapLanes(x4, x6, 16, lanes16)
	x5, x7 = swapLanes(x5, x7, 16, lanes16)
	x0, x1 = swapLanes(x0, x1, 8, lanes8)
	x2, x3 = swapLanes(x2, x3, 8, lanes8)
	x4, x5 = swapLanes(x4, x5, 8, lanes8)
	x6, x7 = swapLanes(x6, x7, 8, lanes8)
	return x0, x1, x2, x3, x4, x5, x6, x7
}

// swapLanes exchanges the high lane of each 2s-bit group of lo with the low
// lane of the same group of hi (one block-swap step of a transpose).
func swapLanes(lo, hi uint64, s uint, mask uint64) (uint64, uint64) {
	t := (lo>>s ^ hi) & mask
	return lo ^ t<<s, hi ^ t
}
