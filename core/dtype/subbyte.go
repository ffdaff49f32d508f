package dtype

// Conversions of the sub-byte integer types (int2, int4, uint2, uint4),
// held one element per byte in the low bits, as ml_dtypes holds them.

// SubByteValue is the integer an element of a SubByteInt or SubByteUint
// type holds: its low bits, sign-extended for SubByteInt. The upper bits
// of the byte are ignored, as the registry's bytes encoding says.
func SubByteValue(dt DataType, b byte) int64 {
	bits := uint(SubByteBits(dt))
	if bits == 0 {
		return int64(b)
	}
	shift := 8 - bits
	if dt.Kind == SubByteInt {
		return int64(int8(b<<shift) >> shift)
	}
	return int64(b << shift >> shift)
}

// SubByteFromInt is n cast to a SubByteInt or SubByteUint type as
// ml_dtypes casts it: wrapped to the type's width (int4(9) is -7), the
// result in the low bits with the upper bits zero.
func SubByteFromInt(dt DataType, n int64) byte {
	bits := SubByteBits(dt)
	if bits == 0 {
		return byte(n)
	}
	return byte(n) & byte(1<<bits-1)
}
