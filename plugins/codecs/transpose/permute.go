package transpose

import "unsafe"

// plan is a transpose reduced to its essentials: axes of length 1 dropped,
// runs of axes that stay adjacent merged, and a trailing axis that does
// not move folded into the moved unit.
type plan struct {
	shape []int // input shape, in units
	perm  []int // output axis i is input axis perm[i]
	unit  int   // elements (or, for permuteBytes, bytes) moved together
}

func simplify(shape, perm []int) plan {
	unit := 1
	// drop length-1 axes, renumbering the rest
	keep := make([]int, len(shape)) // old axis -> new axis, -1 dropped
	var sh []int
	for ax, n := range shape {
		keep[ax] = -1
		if n != 1 {
			keep[ax] = len(sh)
			sh = append(sh, n)
		}
	}
	var p []int
	for _, ax := range perm {
		if keep[ax] >= 0 {
			p = append(p, keep[ax])
		}
	}
	sh, p = merge(sh, p)
	if n := len(p); n > 0 && p[n-1] == n-1 { // the innermost axis stays innermost
		unit *= sh[n-1]
		sh, p = sh[:n-1], p[:n-1]
	}
	return plan{shape: sh, perm: p, unit: unit}
}

// merge joins output axes i, i+1 whose input axes are consecutive too.
func merge(shape, perm []int) ([]int, []int) {
	// groups of output axes, each a run of consecutive input axes
	var starts []int // first input axis of each group, in output order
	size := map[int]int{}
	for i := 0; i < len(perm); {
		j := i + 1
		for j < len(perm) && perm[j] == perm[j-1]+1 {
			j++
		}
		n := 1
		for _, ax := range perm[i:j] {
			n *= shape[ax]
		}
		starts = append(starts, perm[i])
		size[perm[i]] = n
		i = j
	}
	// the merged input axes are the groups in input order
	newAxis := map[int]int{}
	var sh []int
	for ax := range shape {
		if n, ok := size[ax]; ok {
			newAxis[ax] = len(sh)
			sh = append(sh, n)
		}
	}
	p := make([]int, len(starts))
	for i, s := range starts {
		p[i] = newAxis[s]
	}
	return sh, p
}

func strides(shape []int) []int {
	st := make([]int, len(shape))
	s := 1
	for i := len(shape) - 1; i >= 0; i-- {
		st[i] = s
		s *= shape[i]
	}
	return st
}

// tileFunc moves an na x nb block: for every a < na, b < nb,
// dst[dOff + a*dStrideA + b] = src[sOff + a + b*sStrideB] (in elements).
type tileFunc func(dOff, dStrideA, sOff, sStrideB, na, nb int)

// walk splits a transpose (at least 2 axes, the innermost moved) into 2-D
// blocks between the input's innermost axis (output axis a) and the
// output's innermost axis (b), one per index of the other axes.
func walk(shape, perm []int, tile tileFunc) {
	n := len(perm)
	outShape := make([]int, n)
	for i, ax := range perm {
		outShape[i] = shape[ax]
	}
	for _, s := range outShape {
		if s == 0 {
			return
		}
	}
	inSt, outSt := strides(shape), strides(outShape)
	a, b := 0, n-1
	for i, ax := range perm {
		if ax == n-1 {
			a = i
		}
	}
	var others []int
	for i := range n {
		if i != a && i != b {
			others = append(others, i)
		}
	}
	idx := make([]int, len(others))
	for {
		dOff, sOff := 0, 0
		for k, ax := range others {
			dOff += idx[k] * outSt[ax]
			sOff += idx[k] * inSt[perm[ax]]
		}
		tile(dOff, outSt[a], sOff, inSt[perm[b]], outShape[a], outShape[b])
		k := len(idx) - 1
		for ; k >= 0; k-- {
			if idx[k]++; idx[k] < outShape[others[k]] {
				break
			}
			idx[k] = 0
		}
		if k < 0 {
			return
		}
	}
}

// block is the tile edge: 16 rows of 16 elements of up to 16 bytes stay in
// L1 while they are gathered.
const block = 16

func tile[T any](dst, src []T) tileFunc {
	return func(dOff, dStrideA, sOff, sStrideB, na, nb int) {
		for a0 := 0; a0 < na; a0 += block {
			a1 := min(a0+block, na)
			for b0 := 0; b0 < nb; b0 += block {
				b1 := min(b0+block, nb)
				for a := a0; a < a1; a++ {
					d := dst[dOff+a*dStrideA+b0 : dOff+a*dStrideA+b1]
					s := sOff + a + b0*sStrideB
					for k := range d {
						d[k] = src[s]
						s += sStrideB
					}
				}
			}
		}
	}
}

// permute transposes dst from src by pl; units of several elements are
// copied as runs.
func permute[T any](dst, src []T, pl plan) {
	u := pl.unit
	if u == 1 {
		walk(pl.shape, pl.perm, tile(dst, src))
		return
	}
	walk(pl.shape, pl.perm, func(dOff, dStrideA, sOff, sStrideB, na, nb int) {
		for a := range na {
			d := (dOff + a*dStrideA) * u
			s := sOff + a
			for range nb {
				copy(dst[d:d+u], src[s*u:s*u+u])
				d += u
				s += sStrideB
			}
		}
	})
}

// permuteBytes transposes units of pl.unit bytes, moving them as machine
// words when the unit allows.
func permuteBytes(dst, src []byte, pl plan) {
	switch pl.unit {
	case 2:
		permuteWords[uint16, [2]byte](dst, src, pl)
	case 4:
		permuteWords[uint32, [4]byte](dst, src, pl)
	case 8:
		permuteWords[uint64, [8]byte](dst, src, pl)
	case 16:
		permuteWords[[2]uint64, [16]byte](dst, src, pl)
	default:
		permute(dst, src, pl)
	}
}

// permuteWords views the buffers as words W when both are aligned for W,
// else as byte arrays A of the same size (alignment 1).
func permuteWords[W, A any](dst, src []byte, pl plan) {
	pl.unit = 1 // one word per unit
	if dw, ok := view[W](dst); ok {
		if sw, ok := view[W](src); ok {
			permute(dw, sw, pl)
			return
		}
	}
	da, _ := view[A](dst)
	sa, _ := view[A](src)
	permute(da, sa, pl)
}

// view reinterprets b as a slice of T when b is aligned for T.
func view[T any](b []byte) ([]T, bool) {
	var z T
	size, align := int(unsafe.Sizeof(z)), uintptr(unsafe.Alignof(z))
	if len(b) == 0 {
		return nil, true
	}
	p := unsafe.Pointer(unsafe.SliceData(b))
	if uintptr(p)%align != 0 {
		return nil, false
	}
	return unsafe.Slice((*T)(p), len(b)/size), true
}
