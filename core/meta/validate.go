package meta

import (
	"errors"
	"fmt"

	"github.com/zarrgw/zarrgw/core/dtype"
)

// Validate checks the invariants every format needs: matching ranks,
// non-negative shape, positive chunk shape, a valid data type, a fill value
// of the element size, and dimension names of the right length. The
// writers call it, so that nothing they write fails to parse back.
func (a *ArrayMeta) Validate() error {
	if len(a.ChunkShape) != len(a.Shape) {
		return fmt.Errorf("chunk shape has %d dimensions, shape has %d", len(a.ChunkShape), len(a.Shape))
	}
	for i, n := range a.Shape {
		if n < 0 {
			return fmt.Errorf("shape[%d] is %d, must be >= 0", i, n)
		}
	}
	for i, n := range a.ChunkShape {
		if n <= 0 {
			return fmt.Errorf("chunk shape[%d] is %d, must be > 0", i, n)
		}
	}
	if err := validDataType(a); err != nil {
		return err
	}
	if a.DimensionNames != nil && len(a.DimensionNames) != len(a.Shape) {
		return fmt.Errorf("dimension_names: %d names for %d dimensions", len(a.DimensionNames), len(a.Shape))
	}
	return nil
}

func validDataType(a *ArrayMeta) error {
	dt := a.DataType
	if dt.Kind == 0 {
		return errors.New("data type not set")
	}
	if !dt.Variable() && (dt.Size <= 0 || dt.Size > dtype.MaxElementSize) {
		return fmt.Errorf("data type %q has invalid size %d", dt.Name, dt.Size)
	}
	if a.FillValue != nil && !dt.Variable() && len(a.FillValue) != dt.Size {
		return fmt.Errorf("fill value has %d bytes, data type %s has %d", len(a.FillValue), dt.Name, dt.Size)
	}
	return nil
}
