//go:build !amd64 || purego

package blosc

// Without assembly kernels the shuffles use the portable SWAR versions.

func interleave2(p0, p1, dst []byte, e int) int { return interleave2SWAR(p0, p1, dst, e) }

func deinterleave2(src, p0, p1 []byte, e int) int { return deinterleave2SWAR(src, p0, p1, e) }

func interleave4(p0, p1, p2, p3, dst []byte, e int) int {
	return interleave4SWAR(p0, p1, p2, p3, dst, e)
}

func deinterleave4(src, p0, p1, p2, p3 []byte, e int) int {
	return deinterleave4SWAR(src, p0, p1, p2, p3, e)
}

func interleave8(ps [][]byte, dst []byte, e int) int { return interleave8SWAR(ps, dst, e) }

func deinterleave8(src []byte, ps [][]byte, e int) int { return deinterleave8SWAR(src, ps, e) }

func bitTransposeFast(p, r []byte) int { return 0 }

func bitUntransposeFast(r, p []byte) int { return 0 }
