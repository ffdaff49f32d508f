package ndarray

import (
	"encoding/binary"
	"math/rand"
	"testing"

	"github.com/zarrgw/zarrgw/core/dtype"
)

// naiveIndex walks every multi-index of counts in C order.
func naiveIndex(counts []int, f func(idx []int)) {
	idx := make([]int, len(counts))
	for _, c := range counts {
		if c == 0 {
			return
		}
	}
	for {
		f(idx)
		d := len(counts) - 1
		for ; d >= 0; d-- {
			idx[d]++
			if idx[d] < counts[d] {
				break
			}
			idx[d] = 0
		}
		if d < 0 {
			return
		}
	}
}

func offset(shape []int, sel []Span, idx []int) int {
	off := 0
	for i := range shape {
		off = off*shape[i] + sel[i].Start + idx[i]*sel[i].Step
	}
	return off
}

func randSel(r *rand.Rand, shape, counts []int) []Span {
	sel := make([]Span, len(shape))
	for i, n := range shape {
		c := counts[i]
		maxStep := 1
		if c > 1 {
			maxStep = (n - 1) / (c - 1)
		}
		step := 1 + r.Intn(maxStep)
		span := (c-1)*step + 1
		start := r.Intn(n - span + 1)
		sel[i] = Span{Start: start, Step: step, Count: c}
	}
	return sel
}

func TestCopyRegionMatchesNaive(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	i32 := dtype.Named("int32")
	for iter := 0; iter < 500; iter++ {
		rank := r.Intn(4) + 1
		srcShape, dstShape, counts := make([]int, rank), make([]int, rank), make([]int, rank)
		for i := 0; i < rank; i++ {
			counts[i] = r.Intn(4) + 1
			srcShape[i] = counts[i] + r.Intn(6)
			dstShape[i] = counts[i] + r.Intn(6)
		}
		src := New(i32, srcShape)
		for i := 0; i < src.Len(); i++ {
			binary.LittleEndian.PutUint32(src.Data[4*i:], uint32(i+1))
		}
		dst := New(i32, dstShape)
		srcSel, dstSel := randSel(r, srcShape, counts), randSel(r, dstShape, counts)
		if err := CopyRegion(dst, dstSel, src, srcSel); err != nil {
			t.Fatal(err)
		}
		want := New(i32, dstShape)
		naiveIndex(counts, func(idx []int) {
			d, s := offset(dstShape, dstSel, idx), offset(srcShape, srcSel, idx)
			copy(want.Data[4*d:4*d+4], src.Data[4*s:4*s+4])
		})
		if string(want.Data) != string(dst.Data) {
			t.Fatalf("iteration %d: copy of %v from %v%v into %v%v differs", iter, counts, srcShape, srcSel, dstShape, dstSel)
		}
	}
}

func TestFillRegionStrings(t *testing.T) {
	a := New(dtype.Named("string"), []int{3, 4})
	FillRegion(a, []Span{{Start: 1, Step: 1, Count: 2}, {Start: 0, Step: 2, Count: 2}}, []byte("x"))
	want := []string{"", "", "", "", "x", "", "x", "", "x", "", "x", ""}
	for i := range want {
		if a.Strings[i] != want[i] {
			t.Fatalf("element %d = %q, want %q", i, a.Strings[i], want[i])
		}
	}
}

func TestFillRegionBytes(t *testing.T) {
	a := New(dtype.Named("uint16"), []int{2, 3})
	FillRegion(a, []Span{{Start: 0, Step: 1, Count: 2}, {Start: 1, Step: 1, Count: 2}}, []byte{0x34, 0x12})
	want := []uint16{0, 0x1234, 0x1234, 0, 0x1234, 0x1234}
	for i, w := range want {
		if got := binary.LittleEndian.Uint16(a.Data[2*i:]); got != w {
			t.Fatalf("element %d = %#x, want %#x", i, got, w)
		}
	}
}

func TestZeroDimensional(t *testing.T) {
	src := Filled(dtype.Named("int8"), nil, []byte{7})
	dst := New(dtype.Named("int8"), nil)
	if err := CopyRegion(dst, nil, src, nil); err != nil {
		t.Fatal(err)
	}
	if dst.Data[0] != 7 {
		t.Fatalf("0-d copy gave %d", dst.Data[0])
	}
}
