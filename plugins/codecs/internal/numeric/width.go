package numeric

import "github.com/zarrgw/zarrgw/core/dtype"

// BitWidth is the number of bits that carry an element of dt (of each
// component, for a complex form of the registry's narrow floats): 8*Size,
// fewer for bool (1) and the registry's sub-byte types (int2/uint2 2,
// int4/uint4 and float4_e2m1fn 4, the float6 types 6), each held in the
// low bits of one byte in memory.
func BitWidth(dt dtype.DataType) int {
	switch dt.Kind {
	case dtype.Bool:
		return 1
	case dtype.SubByteInt, dtype.SubByteUint:
		return dtype.SubByteBits(dt)
	case dtype.MiniFloat, dtype.MiniComplex:
		if f, ok := dtype.FloatFormatOf(dt); ok {
			return f.Bits
		}
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
