package numeric

import "github.com/zarrgw/zarrgw/core/dtype"

// BitWidth is the number of bits that carry an element of dt: 8*Size for
// every type core/dtype knows today, fewer for the sub-byte types of the
// zarr-extensions registry (bool 1; int2/uint2 2; int4/uint4 and
// float4_e2m1fn 4; the float6 types 6), each held in one byte in memory.
//
// The sub-byte names are listed here until core/dtype carries the width
// of each type itself; then this function should ask core/dtype.
func BitWidth(dt dtype.DataType) int {
	switch dt.Name {
	case "bool":
		return 1
	case "int2", "uint2":
		return 2
	case "int4", "uint4", "float4_e2m1fn":
		return 4
	case "float6_e2m3fn", "float6_e3m2fn":
		return 6
	}
	return 8 * dt.Size
}

// IntRange is the least and greatest value of an integer type of width
// bits (signed or not), as 64-bit patterns of int64 (signed) or uint64.
func IntRange(signed bool, bits int) (lo int64, hi uint64) {
	if signed {
		return -1 << (bits - 1), 1<<(bits-1) - 1
	}
	if bits == 64 {
		return 0, ^uint64(0)
	}
	return 0, 1<<bits - 1
}

// LoadBits reads the little-endian bits of one element of len(b) <= 8
// bytes.
func LoadBits(b []byte) uint64 {
	var u uint64
	for i := len(b) - 1; i >= 0; i-- {
		u = u<<8 | uint64(b[i])
	}
	return u
}

// StoreBits writes the low len(b) bytes of u into b, little-endian.
func StoreBits(b []byte, u uint64) {
	for i := range b {
		b[i] = byte(u >> (8 * i))
	}
}
