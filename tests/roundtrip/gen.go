// Package roundtrip writes random data through random selections of arrays
// of every data type and codec chain, and checks that what is read back
// equals a reference kept in memory.
package roundtrip

import (
	"encoding/binary"
	"math/rand"

	"github.com/zarrgw/zarrgw/core/dtype"
	"github.com/zarrgw/zarrgw/core/grid"
	"github.com/zarrgw/zarrgw/core/ndarray"
)

// randomArray fills an array of the given type and shape with random
// elements valid for the type.
func randomArray(r *rand.Rand, dt dtype.DataType, shape []int) *ndarray.Array {
	a := ndarray.New(dt, shape)
	n := a.Len()
	switch dt.Kind {
	case dtype.String, dtype.Bytes:
		for i := range a.Strings {
			a.Strings[i] = randomString(r, dt.Kind == dtype.Bytes)
		}
	case dtype.Bool:
		for i := range a.Data {
			a.Data[i] = byte(r.Intn(2))
		}
	case dtype.FixedUnicode:
		for i := 0; i < n; i++ {
			chars := r.Intn(dt.Size/4 + 1)
			for c := 0; c < chars; c++ {
				binary.LittleEndian.PutUint32(a.Data[i*dt.Size+4*c:], uint32(randomRune(r)))
			}
		}
	case dtype.FixedBytes:
		for i := 0; i < n; i++ {
			chars := r.Intn(dt.Size + 1)
			for c := 0; c < chars; c++ {
				a.Data[i*dt.Size+c] = byte(1 + r.Intn(255))
			}
		}
	default:
		r.Read(a.Data)
		// the narrow types narrower than a byte hold their value in the
		// low bits, upper bits zero (the form a fill value is written back from)
		if mask := narrowMask(dt); mask != 0xff {
			for i := range a.Data {
				a.Data[i] &= mask
			}
		}
	}
	return a
}

// narrowMask is the bits of each byte that an element of dt uses.
func narrowMask(dt dtype.DataType) byte {
	if bits := dtype.SubByteBits(dt); bits > 0 {
		return byte(1<<bits - 1)
	}
	if f, ok := dtype.FloatFormatOf(dt); ok && f.Bits < 8 {
		return byte(f.Mask())
	}
	return 0xff
}

func randomRune(r *rand.Rand) rune {
	pool := []rune("abcxyzÄé漢字🙂 \t")
	return pool[r.Intn(len(pool))]
}

func randomString(r *rand.Rand, binaryOK bool) string {
	n := r.Intn(8)
	if binaryOK {
		b := make([]byte, n)
		r.Read(b)
		return string(b)
	}
	s := make([]rune, n)
	for i := range s {
		s[i] = randomRune(r)
	}
	return string(s)
}

// randomSelection picks a selection with steps inside shape.
func randomSelection(r *rand.Rand, shape []int) grid.Selection {
	sel := make(grid.Selection, len(shape))
	for i, n := range shape {
		if n == 0 {
			sel[i] = grid.Dim{Start: 0, Step: 1, Count: 0}
			continue
		}
		start := r.Intn(n)
		step := 1
		if r.Intn(3) == 0 {
			step = 1 + r.Intn(3)
		}
		maxCount := (n-1-start)/step + 1
		count := 1 + r.Intn(maxCount)
		drop := count == 1 && r.Intn(4) == 0
		sel[i] = grid.Dim{Start: start, Step: step, Count: count, Drop: drop}
	}
	return sel
}

// spans converts a selection to the spans of a full-rank region.
func spans(sel grid.Selection) []grid.Span {
	out := make([]grid.Span, len(sel))
	for i, d := range sel {
		out[i] = grid.Span{Start: d.Start, Step: d.Step, Count: d.Count}
	}
	return out
}

func gridAll(n int) grid.Dim { return grid.Dim{Start: 0, Step: 1, Count: n} }
