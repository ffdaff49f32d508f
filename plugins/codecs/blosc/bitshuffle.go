package blosc

// Bit shuffle (the bitshuffle algorithm as c-blosc applies it per block):
// with e = n / ts elements and e a multiple of 8, the output is 8*ts rows
// of e/8 bytes; row 8*b+k holds bit k of byte b of every element, element
// i's bit at bit i%8 of row byte i/8. The rows of byte plane b fill exactly
// the bytes the plane would occupy after a byte shuffle, so a bit shuffle
// is a byte shuffle followed by an 8x8 bit transpose within each plane.
// When e is not a multiple of 8 the block is copied unchanged; the
// n % ts trailing bytes are always copied unchanged.

// bitshuffle writes the bit-shuffled src to dst; tmp holds len(src) bytes.
func bitshuffle(ts int, src, dst, tmp []byte) {
	e := len(src) / ts
	if e%8 != 0 {
		copy(dst, src)
		return
	}
	planes := src[:e*ts]
	if ts > 1 {
		shuffle(ts, planes, tmp[:e*ts])
		planes = tmp[:e*ts]
	}
	for b := range ts {
		bitTransposePlane(planes[b*e:(b+1)*e], dst[b*e:(b+1)*e])
	}
	copy(dst[e*ts:], src[e*ts:])
}

// bitunshuffle is the inverse of bitshuffle; tmp holds len(src) bytes.
func bitunshuffle(ts int, src, dst, tmp []byte) {
	e := len(src) / ts
	if e%8 != 0 {
		copy(dst, src)
		return
	}
	var arr [maxSplits][]byte
	bitunshufflePlanes(planeSlices(src, ts, e, &arr), e, dst, tmp)
	copy(dst[e*ts:], src[e*ts:])
}

// bitunshufflePlanes undoes the bit shuffle of e elements (e a multiple of
// 8) whose byte plane b is in rows[b] as its 8 bit rows, writing the
// elements to dst. tmp holds len(rows)*e bytes.
func bitunshufflePlanes(rows [][]byte, e int, dst, tmp []byte) {
	ts := len(rows)
	if ts == 1 {
		bitUntransposePlane(rows[0], dst[:e])
		return
	}
	for b, r := range rows {
		bitUntransposePlane(r, tmp[b*e:(b+1)*e])
	}
	var arr [maxSplits][]byte
	interleave(planeSlices(tmp, ts, e, &arr), e, dst)
}

// planeSlices cuts ts planes of e bytes out of b, using arr as storage
// when it is large enough.
func planeSlices(b []byte, ts, e int, arr *[maxSplits][]byte) [][]byte {
	ps := arr[:0]
	if ts > len(arr) {
		ps = make([][]byte, 0, ts)
	}
	return planesOf(b, ts, e, ps[:ts])
}

// Masks selecting the low half of every 2-, 4- and 8-bit group.
const (
	bits1 = 0x5555555555555555
	bits2 = 0x3333333333333333
	bits4 = 0x0F0F0F0F0F0F0F0F
)

// transposeBits transposes, in each of the 8 byte columns separately, the
// 8x8 bit matrix whose row r is that byte of word r: afterwards bit c of
// byte j of word r holds what bit r of byte j of word c held.
func transposeBits(x0, x1, x2, x3, x4, x5, x6, x7 uint64) (uint64, uint64, uint64, uint64, uint64, uint64, uint64, uint64) {
	x0, x4 = swapLanes(x0, x4, 4, bits4)
	x1, x5 = swapLanes(x1, x5, 4, bits4)
	x2, x6 = swapLanes(x2, x6, 4, bits4)
	x3, x7 = swapLanes(x3, x7, 4, bits4)
	x0, x2 = swapLanes(x0, x2, 2, bits2)
	x1, x3 = swapLanes(x1, x3, 2, bits2)
	x4, x6 = swapLanes(x4, x6, 2, bits2)
	x5, x7 = swapLanes(x5, x7, 2, bits2)
	x0, x1 = swapLanes(x0, x1, 1, bits1)
	x2, x3 = swapLanes(x2, x3, 1, bits1)
	x4, x5 = swapLanes(x4, x5, 1, bits1)
	x6, x7 = swapLanes(x6, x7, 1, bits1)
	return x0, x1, x2, x3, x4, x5, x6, x7
}

// transposeBits8x8 transposes the 8x8 bit matrix held in one word (row r
// = byte r, column c = bit c).
func transposeBits8x8(x uint64) uint64 {
	t := (x ^ x>>7) & 0x00AA00AA00AA00AA
	x ^= t ^ t<<7
	t = (x ^ x>>14) & 0x0000CCCC0000CCCC
	x ^= t ^ t<<14
	t = (x ^ x>>28) & 0x00000000F0F0F0F0
	return x ^ t ^ t<<28
}

// bitTransposePlane turns one byte plane p (len a multiple of 8) into its
// 8 bit rows in r (same length): row k byte g bit j = bit k of p[8g+j].
// Sixty-four bytes go through registers at a time: a byte transpose
// gathers bytes 8g'+j of eight groups into word j, then a bit transpose
// across the eight words leaves row k of the eight groups in word k.
func bitTransposePlane(p, r []byte) {
	r = r[:len(p)]
	bitTransposeSWAR(p, r, bitTransposeFast(p, r))
}

// bitTransposeSWAR does groups from g on of bitTransposePlane.
func bitTransposeSWAR(p, r []byte, from int) {
	rl := len(p) / 8
	s, d, url := ptr(p), ptr(r), uintptr(rl)
	g := uintptr(from)
	for ; g+8 <= url; g += 8 {
		o := 8 * g
		x0, x1, x2, x3 := load64(s, o), load64(s, o+8), load64(s, o+16), load64(s, o+24)
		x4, x5, x6, x7 := load64(s, o+32), load64(s, o+40), load64(s, o+48), load64(s, o+56)
		x0, x1, x2, x3, x4, x5, x6, x7 = transposeBytes(x0, x1, x2, x3, x4, x5, x6, x7)
		x0, x1, x2, x3, x4, x5, x6, x7 = transposeBits(x0, x1, x2, x3, x4, x5, x6, x7)
		store64(d, g, x0)
		store64(d, url+g, x1)
		store64(d, 2*url+g, x2)
		store64(d, 3*url+g, x3)
		store64(d, 4*url+g, x4)
		store64(d, 5*url+g, x5)
		store64(d, 6*url+g, x6)
		store64(d, 7*url+g, x7)
	}
	for i := int(g); i < rl; i++ {
		y := transposeBits8x8(le64(p[8*i:]))
		for k := range 8 {
			r[k*rl+i] = byte(y >> (8 * k))
		}
	}
}

// bitUntransposePlane is the inverse of bitTransposePlane.
func bitUntransposePlane(r, p []byte) {
	p = p[:len(r)]
	bitUntransposeSWAR(r, p, bitUntransposeFast(r, p))
}

// bitUntransposeSWAR does groups from g on of bitUntransposePlane.
func bitUntransposeSWAR(r, p []byte, from int) {
	rl := len(r) / 8
	s, d, url := ptr(r), ptr(p), uintptr(rl)
	g := uintptr(from)
	for ; g+8 <= url; g += 8 {
		x0, x1, x2, x3 := load64(s, g), load64(s, url+g), load64(s, 2*url+g), load64(s, 3*url+g)
		x4, x5, x6, x7 := load64(s, 4*url+g), load64(s, 5*url+g), load64(s, 6*url+g), load64(s, 7*url+g)
		x0, x1, x2, x3, x4, x5, x6, x7 = transposeBits(x0, x1, x2, x3, x4, x5, x6, x7)
		x0, x1, x2, x3, x4, x5, x6, x7 = transposeBytes(x0, x1, x2, x3, x4, x5, x6, x7)
		o := 8 * g
		store64(d, o, x0)
		store64(d, o+8, x1)
		store64(d, o+16, x2)
		store64(d, o+24, x3)
		store64(d, o+32, x4)
		store64(d, o+40, x5)
		store64(d, o+48, x6)
		store64(d, o+56, x7)
	}
	for i := int(g); i < rl; i++ {
		var x uint64
		for k := range 8 {
			x |= uint64(r[k*rl+i]) << (8 * k)
		}
		putLE64(p[8*i:], transposeBits8x8(x))
	}
}
