package meta

import (
	"github.com/zarrgw/zarrgw/core/checked"
	"github.com/zarrgw/zarrgw/core/dtype"
)

// Validate checks the invariants every format needs: matching ranks,
// non-negative shape, positive chunk shape, sizes that fit in 64 bits (the
// array's and a chunk's elements, and their bytes in memory), a valid data
// type, a fill value of the element size, and dimension names of the right
// length. The writers call it, so that nothing they write fails to parse
// back, and readers through Check. Errors wrap ErrInvalid.
func (a *ArrayMeta) Validate() error {
	if len(a.ChunkShape) != len(a.Shape) {
		return invalidf("chunk shape has %d dimensions, shape has %d", len(a.ChunkShape), len(a.Shape))
	}
	for i, n := range a.Shape {
		if n < 0 {
			return invalidf("shape[%d] is %d, must be >= 0", i, n)
		}
	}
	for i, n := range a.ChunkShape {
		if n <= 0 {
			return invalidf("chunk shape[%d] is %d, must be > 0", i, n)
		}
	}
	if err := a.validateEdges(); err != nil {
		return err
	}
	if err := validDataType(a); err != nil {
		return err
	}
	if err := fitsInMemorySizes(a.Shape, a.DataType, "shape"); err != nil {
		return err
	}
	if err := fitsInMemorySizes(a.ChunkShape, a.DataType, "chunk shape"); err != nil {
		return err
	}
	if a.DimensionNames != nil && len(a.DimensionNames) != len(a.Shape) {
		return invalidf("dimension_names: %d names for %d dimensions", len(a.DimensionNames), len(a.Shape))
	}
	return nil
}

// fitsInMemorySizes checks that shape's elements, and the bytes they take
// in memory, can be counted in an int64: every size computed from the
// array (a selection, a slab, a chunk) is then at most that.
func fitsInMemorySizes(shape []int, dt dtype.DataType, field string) error {
	var c checked.Calc
	c.Mul(c.Product(shape), dt.MemBytes())
	if c.Overflowed() {
		return invalidf("%s %v: its elements of %s take more than 8 EiB, beyond any size a reader can count (64 bits)", field, shape, dt.Name)
	}
	return nil
}

func validDataType(a *ArrayMeta) error {
	dt := a.DataType
	if dt.Kind == 0 {
		return invalidf("data type not set")
	}
	if !dt.Variable() && (dt.Size <= 0 || dt.Size > dtype.MaxElementSize) {
		return invalidf("data type %q has invalid size %d", dt.Name, dt.Size)
	}
	if a.FillValue != nil && !dt.Variable() && len(a.FillValue) != dt.Size {
		return invalidf("fill value has %d bytes, data type %s has %d", len(a.FillValue), dt.Name, dt.Size)
	}
	return nil
}
