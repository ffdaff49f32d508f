package blosc

import (
	"encoding/binary"
	"unsafe"
)

// Byte shuffle: a buffer of e elements of ts bytes is rewritten as ts
// planes of e bytes, plane j holding byte j of every element; the n % ts
// trailing bytes are copied unchanged. The specialised paths move eight
// elements at a time through 64-bit registers, which in Go beats byte
// loops by a wide margin.

// shuffle writes the byte planes of src to dst (same length).
func shuffle(ts int, src, dst []byte) {
	e := len(src) / ts
	switch ts {
	case 1:
		copy(dst, src)
		return
	case 2:
		shuffleGeneric(2, src, dst, e, shuffle2(src, dst, e))
	case 4:
		shuffleGeneric(4, src, dst, e, shuffle4(src, dst, e))
	case 8:
		shuffleGeneric(8, src, dst, e, shuffle8(src, dst, e))
	default:
		shuffleGeneric(ts, src, dst, e, 0)
	}
	copy(dst[ts*e:], src[ts*e:])
}

// unshuffle is the inverse of shuffle.
func unshuffle(ts int, src, dst []byte) {
	e := len(src) / ts
	switch ts {
	case 1:
		copy(dst, src)
		return
	case 2:
		unshuffleGeneric(2, src, dst, e, unshuffle2(src, dst, e))
	case 4:
		unshuffleGeneric(4, src, dst, e, unshuffle4(src, dst, e))
	case 8:
		unshuffleGeneric(8, src, dst, e, unshuffle8(src, dst, e))
	default:
		unshuffleGeneric(ts, src, dst, e, 0)
	}
	copy(dst[ts*e:], src[ts*e:])
}

// shuffleGeneric shuffles elements from..e-1 of any type size.
func shuffleGeneric(ts int, src, dst []byte, e, from int) {
	for j := range ts {
		plane := dst[j*e : (j+1)*e]
		for i := from; i < e; i++ {
			plane[i] = src[i*ts+j]
		}
	}
}

// unshuffleGeneric unshuffles elements from..e-1 of any type size.
func unshuffleGeneric(ts int, src, dst []byte, e, from int) {
	for j := range ts {
		plane := src[j*e : (j+1)*e]
		for i := from; i < e; i++ {
			dst[i*ts+j] = plane[i]
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

// The kernels below handle whole groups of 8 or 16 elements and return how
// many elements they did; the generic loop finishes the rest. Their
// re-slicing of src and dst to exactly ts*e bytes is the bounds proof for
// every load and store in the loop.

func unshuffle2(src, dst []byte, e int) int {
	src, dst = src[:2*e], dst[:2*e]
	s, d, ue := ptr(src), ptr(dst), uintptr(e)
	i := uintptr(0)
	for ; i+8 <= ue; i += 8 {
		a, b := load64(s, i), load64(s, ue+i)
		store64(d, 2*i, spread8(a&lanes32)|spread8(b&lanes32)<<8)
		store64(d, 2*i+8, spread8(a>>32)|spread8(b>>32)<<8)
	}
	return int(i)
}

func shuffle2(src, dst []byte, e int) int {
	src, dst = src[:2*e], dst[:2*e]
	s, d, ue := ptr(src), ptr(dst), uintptr(e)
	i := uintptr(0)
	for ; i+8 <= ue; i += 8 {
		w0, w1 := load64(s, 2*i), load64(s, 2*i+8)
		store64(d, i, compact8(w0)|compact8(w1)<<32)
		store64(d, ue+i, compact8(w0>>8)|compact8(w1>>8)<<32)
	}
	return int(i)
}

// unshuffle4 takes 16 elements at a time: the 8 words (planes 0-3 at
// elements i..i+7, then at i+8..i+15) transposed as a byte matrix give in
// word c element i+c in the low half and element i+8+c in the high half.
func unshuffle4(src, dst []byte, e int) int {
	src, dst = src[:4*e], dst[:4*e]
	s, d, ue := ptr(src), ptr(dst), uintptr(e)
	i := uintptr(0)
	for ; i+16 <= ue; i += 16 {
		x0, x1, x2, x3 := load64(s, i), load64(s, ue+i), load64(s, 2*ue+i), load64(s, 3*ue+i)
		x4, x5, x6, x7 := load64(s, i+8), load64(s, ue+i+8), load64(s, 2*ue+i+8), load64(s, 3*ue+i+8)
		x0, x1, x2, x3, x4, x5, x6, x7 = transposeBytes(x0, x1, x2, x3, x4, x5, x6, x7)
		o := 4 * i
		store32(d, o, uint32(x0))
		store32(d, o+4, uint32(x1))
		store32(d, o+8, uint32(x2))
		store32(d, o+12, uint32(x3))
		store32(d, o+16, uint32(x4))
		store32(d, o+20, uint32(x5))
		store32(d, o+24, uint32(x6))
		store32(d, o+28, uint32(x7))
		store32(d, o+32, uint32(x0>>32))
		store32(d, o+36, uint32(x1>>32))
		store32(d, o+40, uint32(x2>>32))
		store32(d, o+44, uint32(x3>>32))
		store32(d, o+48, uint32(x4>>32))
		store32(d, o+52, uint32(x5>>32))
		store32(d, o+56, uint32(x6>>32))
		store32(d, o+60, uint32(x7>>32))
	}
	return int(i)
}

// shuffle4 is the inverse of unshuffle4.
func shuffle4(src, dst []byte, e int) int {
	src, dst = src[:4*e], dst[:4*e]
	s, d, ue := ptr(src), ptr(dst), uintptr(e)
	i := uintptr(0)
	for ; i+16 <= ue; i += 16 {
		o := 4 * i
		x0 := uint64(load32(s, o)) | uint64(load32(s, o+32))<<32
		x1 := uint64(load32(s, o+4)) | uint64(load32(s, o+36))<<32
		x2 := uint64(load32(s, o+8)) | uint64(load32(s, o+40))<<32
		x3 := uint64(load32(s, o+12)) | uint64(load32(s, o+44))<<32
		x4 := uint64(load32(s, o+16)) | uint64(load32(s, o+48))<<32
		x5 := uint64(load32(s, o+20)) | uint64(load32(s, o+52))<<32
		x6 := uint64(load32(s, o+24)) | uint64(load32(s, o+56))<<32
		x7 := uint64(load32(s, o+28)) | uint64(load32(s, o+60))<<32
		x0, x1, x2, x3, x4, x5, x6, x7 = transposeBytes(x0, x1, x2, x3, x4, x5, x6, x7)
		store64(d, i, x0)
		store64(d, ue+i, x1)
		store64(d, 2*ue+i, x2)
		store64(d, 3*ue+i, x3)
		store64(d, i+8, x4)
		store64(d, ue+i+8, x5)
		store64(d, 2*ue+i+8, x6)
		store64(d, 3*ue+i+8, x7)
	}
	return int(i)
}

func unshuffle8(src, dst []byte, e int) int {
	src, dst = src[:8*e], dst[:8*e]
	s, d, ue := ptr(src), ptr(dst), uintptr(e)
	i := uintptr(0)
	for ; i+8 <= ue; i += 8 {
		x0, x1, x2, x3 := load64(s, i), load64(s, ue+i), load64(s, 2*ue+i), load64(s, 3*ue+i)
		x4, x5, x6, x7 := load64(s, 4*ue+i), load64(s, 5*ue+i), load64(s, 6*ue+i), load64(s, 7*ue+i)
		x0, x1, x2, x3, x4, x5, x6, x7 = transposeBytes(x0, x1, x2, x3, x4, x5, x6, x7)
		o := 8 * i
		store64(d, o, x0)
		store64(d, o+8, x1)
		store64(d, o+16, x2)
		store64(d, o+24, x3)
		store64(d, o+32, x4)
		store64(d, o+40, x5)
		store64(d, o+48, x6)
		store64(d, o+56, x7)
	}
	return int(i)
}

func shuffle8(src, dst []byte, e int) int {
	src, dst = src[:8*e], dst[:8*e]
	s, d, ue := ptr(src), ptr(dst), uintptr(e)
	i := uintptr(0)
	for ; i+8 <= ue; i += 8 {
		o := 8 * i
		x0, x1, x2, x3 := load64(s, o), load64(s, o+8), load64(s, o+16), load64(s, o+24)
		x4, x5, x6, x7 := load64(s, o+32), load64(s, o+40), load64(s, o+48), load64(s, o+56)
		x0, x1, x2, x3, x4, x5, x6, x7 = transposeBytes(x0, x1, x2, x3, x4, x5, x6, x7)
		store64(d, i, x0)
		store64(d, ue+i, x1)
		store64(d, 2*ue+i, x2)
		store64(d, 3*ue+i, x3)
		store64(d, 4*ue+i, x4)
		store64(d, 5*ue+i, x5)
		store64(d, 6*ue+i, x6)
		store64(d, 7*ue+i, x7)
	}
	return int(i)
}

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
