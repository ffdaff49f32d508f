// Package ndarray holds the in-memory N-dimensional array that flows through
// the codec pipeline and the array API: a data type, a shape and the
// elements in C (row-major) order.
package ndarray

import (
	"fmt"

	"github.com/zarrgw/zarrgw/core/dtype"
)

// Array is a dense N-dimensional array in C order. Fixed-size elements live
// in Data (little-endian, DType.Size bytes each); variable-length elements
// live in Strings. Exactly one of the two is used, chosen by DType.Variable().
type Array struct {
	DType   dtype.DataType
	Shape   []int
	Data    []byte
	Strings []string
}

// NumElements is the product of shape (1 for a 0-d array).
func NumElements(shape []int) int {
	n := 1
	for _, s := range shape {
		n *= s
	}
	return n
}

// Len is the number of elements.
func (a *Array) Len() int { return NumElements(a.Shape) }

// New returns a zeroed array.
func New(dt dtype.DataType, shape []int) *Array {
	a := &Array{DType: dt, Shape: append([]int(nil), shape...)}
	n := NumElements(shape)
	if dt.Variable() {
		a.Strings = make([]string, n)
	} else {
		a.Data = newBytes(n * dt.Size)
	}
	return a
}

// Filled returns an array whose every element is fill (one element's
// in-memory bytes; for variable-length types the element's bytes). A nil
// fill gives zeroes.
func Filled(dt dtype.DataType, shape []int, fill []byte) *Array {
	a := New(dt, shape)
	if fill == nil {
		return a
	}
	if dt.Variable() {
		s := string(fill)
		for i := range a.Strings {
			a.Strings[i] = s
		}
		return a
	}
	FillBytes(a.Data, fill)
	return a
}

// FillBytes repeats pattern over dst (len(dst) a multiple of len(pattern)).
func FillBytes(dst, pattern []byte) {
	if len(pattern) == 0 || len(dst) == 0 {
		return
	}
	allZero := true
	for _, b := range pattern {
		if b != 0 {
			allZero = false
			break
		}
	}
	if allZero {
		clear(dst)
		return
	}
	n := copy(dst, pattern)
	for n < len(dst) {
		n += copy(dst[n:], dst[:n])
	}
}

// IsFilled reports whether every element equals fill.
func (a *Array) IsFilled(fill []byte) bool {
	if a.DType.Variable() {
		s := string(fill)
		for _, v := range a.Strings {
			if v != s {
				return false
			}
		}
		return true
	}
	if fill == nil {
		fill = make([]byte, a.DType.Size)
	}
	k := len(fill)
	if k == 0 {
		return true
	}
	for i := 0; i+k <= len(a.Data); i += k {
		if string(a.Data[i:i+k]) != string(fill) {
			return false
		}
	}
	return true
}

// Check verifies that the element storage matches shape and type.
func (a *Array) Check() error {
	n := a.Len()
	if a.DType.Variable() {
		if len(a.Strings) != n {
			return fmt.Errorf("array of shape %v holds %d strings, want %d", a.Shape, len(a.Strings), n)
		}
		return nil
	}
	if len(a.Data) != n*a.DType.Size {
		return fmt.Errorf("array of shape %v and type %s holds %d bytes, want %d", a.Shape, a.DType, len(a.Data), n*a.DType.Size)
	}
	return nil
}
