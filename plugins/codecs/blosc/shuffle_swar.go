package blosc

import "unsafe"

// The portable kernels below (used where no assembly version exists, and
// tested everywhere) handle whole groups of 8 or 16 elements and return how
// many elements they did; a byte loop finishes the rest. Re-slicing every
// plane to e bytes and the interleaved side to ts*e bytes on entry is the
// bounds proof for every load and store in their loops.

func interleave2SWAR(p0, p1, dst []byte, e int) int {
	p0, p1, dst = p0[:e], p1[:e], dst[:2*e]
	s0, s1, d := ptr(p0), ptr(p1), ptr(dst)
	i, ue := uintptr(0), uintptr(e)
	for ; i+8 <= ue; i += 8 {
		a, b := load64(s0, i), load64(s1, i)
		store64(d, 2*i, spread8(a&lanes32)|spread8(b&lanes32)<<8)
		store64(d, 2*i+8, spread8(a>>32)|spread8(b>>32)<<8)
	}
	return int(i)
}

func deinterleave2SWAR(src, p0, p1 []byte, e int) int {
	p0, p1, src = p0[:e], p1[:e], src[:2*e]
	d0, d1, s := ptr(p0), ptr(p1), ptr(src)
	i, ue := uintptr(0), uintptr(e)
	for ; i+8 <= ue; i += 8 {
		w0, w1 := load64(s, 2*i), load64(s, 2*i+8)
		store64(d0, i, compact8(w0)|compact8(w1)<<32)
		store64(d1, i, compact8(w0>>8)|compact8(w1>>8)<<32)
	}
	return int(i)
}

// interleave4SWAR takes 16 elements at a time: the 8 words (planes 0-3 at
// elements i..i+7, then at i+8..i+15) transposed as a byte matrix give in
// word c element i+c in the low half and element i+8+c in the high half.
func interleave4SWAR(p0, p1, p2, p3, dst []byte, e int) int {
	p0, p1, p2, p3, dst = p0[:e], p1[:e], p2[:e], p3[:e], dst[:4*e]
	s0, s1, s2, s3, d := ptr(p0), ptr(p1), ptr(p2), ptr(p3), ptr(dst)
	i, ue := uintptr(0), uintptr(e)
	for ; i+16 <= ue; i += 16 {
		x0, x1, x2, x3 := load64(s0, i), load64(s1, i), load64(s2, i), load64(s3, i)
		x4, x5, x6, x7 := load64(s0, i+8), load64(s1, i+8), load64(s2, i+8), load64(s3, i+8)
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

// deinterleave4SWAR is the inverse of interleave4SWAR.
func deinterleave4SWAR(src, p0, p1, p2, p3 []byte, e int) int {
	p0, p1, p2, p3, src = p0[:e], p1[:e], p2[:e], p3[:e], src[:4*e]
	d0, d1, d2, d3, s := ptr(p0), ptr(p1), ptr(p2), ptr(p3), ptr(src)
	i, ue := uintptr(0), uintptr(e)
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
		store64(d0, i, x0)
		store64(d1, i, x1)
		store64(d2, i, x2)
		store64(d3, i, x3)
		store64(d0, i+8, x4)
		store64(d1, i+8, x5)
		store64(d2, i+8, x6)
		store64(d3, i+8, x7)
	}
	return int(i)
}

// plane8 returns the addresses of 8 planes cut to e bytes.
func plane8(ps [][]byte, e int) (a [8]unsafe.Pointer) {
	for j := range 8 {
		a[j] = ptr(ps[j][:e])
	}
	return a
}

func interleave8SWAR(ps [][]byte, dst []byte, e int) int {
	s, d := plane8(ps, e), ptr(dst[:8*e])
	i, ue := uintptr(0), uintptr(e)
	for ; i+8 <= ue; i += 8 {
		x0, x1, x2, x3 := load64(s[0], i), load64(s[1], i), load64(s[2], i), load64(s[3], i)
		x4, x5, x6, x7 := load64(s[4], i), load64(s[5], i), load64(s[6], i), load64(s[7], i)
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

func deinterleave8SWAR(src []byte, ps [][]byte, e int) int {
	d, s := plane8(ps, e), ptr(src[:8*e])
	i, ue := uintptr(0), uintptr(e)
	for ; i+8 <= ue; i += 8 {
		o := 8 * i
		x0, x1, x2, x3 := load64(s, o), load64(s, o+8), load64(s, o+16), load64(s, o+24)
		x4, x5, x6, x7 := load64(s, o+32), load64(s, o+40), load64(s, o+48), load64(s, o+56)
		x0, x1, x2, x3, x4, x5, x6, x7 = transposeBytes(x0, x1, x2, x3, x4, x5, x6, x7)
		store64(d[0], i, x0)
		store64(d[1], i, x1)
		store64(d[2], i, x2)
		store64(d[3], i, x3)
		store64(d[4], i, x4)
		store64(d[5], i, x5)
		store64(d[6], i, x6)
		store64(d[7], i, x7)
	}
	return int(i)
}
