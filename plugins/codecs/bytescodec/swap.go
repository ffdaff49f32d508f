package bytescodec

import (
	"github.com/zarrgw/zarrgw/core/dtype"

	"encoding/binary"
	"math/bits"
	"slices"
)

// swap copies src to dst reversing the byte order of every unit-byte group
// (len(src) a multiple of unit, dst and src the same length).
// structSwap is the swap unit of a struct type: each field is reversed
// in its own width (dtype.DataType.SwapRuns).
const structSwap = -1

// swapAs copies src into dst in the other byte order: groups of unit
// bytes, or a struct's fields for structSwap.
func swapAs(dst, src []byte, unit int, dt dtype.DataType) {
	if unit != structSwap {
		swap(dst, src, unit)
		return
	}
	copy(dst, src)
	dt.SwapElements(dst)
}

func swap(dst, src []byte, unit int) {
	switch unit {
	case 2:
		swap2(dst, src)
	case 4:
		swap4(dst, src)
	case 8:
		swap8(dst, src)
	default:
		for i := 0; i+unit <= len(src); i += unit {
			d := dst[i : i+unit]
			copy(d, src[i:i+unit])
			slices.Reverse(d)
		}
	}
}

// The 2- and 4-byte loops work on 8 bytes at a time: one load, a few
// register operations and one store for several elements.
const lo8 = 0x00ff00ff00ff00ff

func swap2(dst, src []byte) {
	dst = dst[:len(src)]
	i := 0
	for ; i+8 <= len(src); i += 8 {
		x := binary.LittleEndian.Uint64(src[i:])
		binary.LittleEndian.PutUint64(dst[i:], (x&lo8)<<8|(x>>8)&lo8)
	}
	for ; i+2 <= len(src); i += 2 {
		binary.BigEndian.PutUint16(dst[i:], binary.LittleEndian.Uint16(src[i:]))
	}
}

func swap4(dst, src []byte) {
	dst = dst[:len(src)]
	i := 0
	for ; i+8 <= len(src); i += 8 {
		x := binary.LittleEndian.Uint64(src[i:])
		binary.LittleEndian.PutUint64(dst[i:], bits.RotateLeft64(bits.ReverseBytes64(x), 32))
	}
	for ; i+4 <= len(src); i += 4 {
		binary.BigEndian.PutUint32(dst[i:], binary.LittleEndian.Uint32(src[i:]))
	}
}

func swap8(dst, src []byte) {
	dst = dst[:len(src)]
	for i := 0; i+8 <= len(src); i += 8 {
		binary.BigEndian.PutUint64(dst[i:], binary.LittleEndian.Uint64(src[i:]))
	}
}
