package blosc

import (
	"encoding/binary"
	"math"
	"math/bits"
)

// blzEncoder is a greedy BloscLZ compressor: an LZ4-style single-entry
// hash table of 4-byte sequences, matches verified byte by byte. Its output
// is read by c-blosc's blosclz_decompress: it always begins and ends with a
// literal run.
//
// Table entries hold position+base, and every call raises base past the
// positions of the previous one, so old entries read as empty: the output
// depends on the input alone (whichever pooled encoder runs it) without
// clearing 64 KiB per call.
type blzEncoder struct {
	table [1 << blzHashLog]int32
	base  int32
}

const (
	blzHashLog = 14
	// blzMinInput: shorter inputs are not worth compressing.
	blzMinInput = 16
	// blzTail: matches start before len-blzTail and end at least
	// blzTailGap bytes before the end, leaving a closing literal run.
	blzTail    = 12
	blzTailGap = 4
)

func blzHash(v uint32) uint32 { return v * 2654435761 >> (32 - blzHashLog) }

// compress writes the BloscLZ form of src to dst and returns its length,
// or 0 when it does not fit in len(dst) (the caller stores src raw).
// skipShift sets how fast the search skips ahead over data without
// matches: lower is faster and compresses less.
func (e *blzEncoder) compress(src, dst []byte, skipShift uint) int {
	n := len(src)
	if n < blzMinInput || n > math.MaxInt32/2 {
		return 0
	}
	if e.base < 1 || e.base > math.MaxInt32-int32(n)-1 {
		clear(e.table[:])
		e.base = 1
	}
	base := e.base
	e.base += int32(n) + 1
	limit, matchEnd := n-blzTail, n-blzTailGap
	anchor, ip, op := 0, 1, 0
	for ip < limit {
		seq := binary.LittleEndian.Uint32(src[ip:])
		h := blzHash(seq)
		ref := int(e.table[h] - base)
		e.table[h] = int32(ip) + base
		dist := ip - ref
		if ref < 0 || dist <= 0 || dist > blzMaxFar || binary.LittleEndian.Uint32(src[ref:]) != seq {
			ip += 1 + (ip-anchor)>>skipShift
			continue
		}
		m := 4 + matchLen(src[ref+4:], src[ip+4:matchEnd])
		for ip > anchor && ref > 0 && src[ip-1] == src[ref-1] {
			ip, ref, m = ip-1, ref-1, m+1
		}
		if dist > blzNearMax && m < 5 {
			ip++
			continue // a far match of 4 bytes saves nothing
		}
		if op = blzEmitLiterals(dst, op, src[anchor:ip]); op < 0 {
			return 0
		}
		if op = blzEmitMatch(dst, op, m, dist); op < 0 {
			return 0
		}
		ip += m
		anchor = ip
		if ip < limit {
			// Index the position just before the next search start: runs
			// and periodic data find their continuation there.
			e.table[blzHash(binary.LittleEndian.Uint32(src[ip-2:]))] = int32(ip-2) + base
		}
	}
	if op = blzEmitLiterals(dst, op, src[anchor:]); op < 0 {
		return 0
	}
	return op
}

// matchLen counts the common prefix of a and b (len(b) <= len(a) is the
// search limit).
func matchLen(a, b []byte) int {
	i := 0
	for ; i+8 <= len(b); i += 8 {
		if x := binary.LittleEndian.Uint64(a[i:]) ^ binary.LittleEndian.Uint64(b[i:]); x != 0 {
			return i + bits.TrailingZeros64(x)/8
		}
	}
	for ; i < len(b) && a[i] == b[i]; i++ {
	}
	return i
}

// blzEmitLiterals writes lit as runs of at most 32 bytes; -1 if dst is full.
func blzEmitLiterals(dst []byte, op int, lit []byte) int {
	need := len(lit) + (len(lit)+blzMaxCopy-1)/blzMaxCopy
	if need > len(dst)-op {
		return -1
	}
	for len(lit) > 0 {
		k := min(len(lit), blzMaxCopy)
		dst[op] = byte(k - 1)
		op += 1 + copy(dst[op+1:], lit[:k])
		lit = lit[k:]
	}
	return op
}

// blzEmitMatch writes a match of length m >= 3 at distance dist; -1 if dst
// is full.
func blzEmitMatch(dst []byte, op, m, dist int) int {
	if m/255+6 > len(dst)-op {
		return -1
	}
	d := dist - 1
	far := d >= blzMaxDistance
	hi := byte(31)
	if !far {
		hi = byte(d >> 8)
	}
	if m <= 8 {
		dst[op] = byte(m-2)<<5 | hi
		op++
	} else {
		dst[op] = 7<<5 | hi
		op++
		r := m - 9
		for ; r >= 255; r -= 255 {
			dst[op] = 255
			op++
		}
		dst[op] = byte(r)
		op++
	}
	if !far {
		dst[op] = byte(d)
		return op + 1
	}
	d -= blzMaxDistance
	dst[op], dst[op+1], dst[op+2] = 255, byte(d>>8), byte(d)
	return op + 3
}
