package shard

import "math/bits"

// MortonOrder lists the flat positions of a shard's inner chunks in the
// Morton (Z-curve) order zarr-python writes them in: the bits of the
// coordinates interleaved, dimensions with fewer bits dropping out, codes
// outside the grid skipped.
func MortonOrder(cps []int) []int {
	n := Count(cps)
	widths := make([]int, len(cps))
	for d, c := range cps {
		widths[d] = bits.Len(uint(max(c-1, 0)))
	}
	order := make([]int, 0, n)
	coords := make([]int, len(cps))
	for z := uint64(0); len(order) < n; z++ {
		decodeMorton(z, widths, coords)
		if inside(coords, cps) {
			order = append(order, Flat(cps, coords))
		}
	}
	return order
}

// decodeMorton spreads the bits of z over coords, lowest bit first, one
// bit per dimension per round while the dimension has bits left.
func decodeMorton(z uint64, widths, coords []int) {
	clear(coords)
	maxWidth := 0
	for _, w := range widths {
		maxWidth = max(maxWidth, w)
	}
	in := 0
	for bit := 0; bit < maxWidth; bit++ {
		for d, w := range widths {
			if bit < w {
				coords[d] |= int((z>>in)&1) << bit
				in++
			}
		}
	}
}

func inside(coords, shape []int) bool {
	for d, c := range coords {
		if c >= shape[d] {
			return false
		}
	}
	return true
}
