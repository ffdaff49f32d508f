package picture

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/zarrgw/zarrgw/core/dtype"
	"github.com/zarrgw/zarrgw/core/ndarray"
)

// arrayGrid is a 2-D ndarray of fixed-size numbers or booleans.
type arrayGrid struct {
	rows, cols int
	value      func(i int) float64
	data       []byte
	size       int
	fill       string // the fill value's bytes, "" for none
}

// FromArray reads a as a grid of rows x cols elements; elements equal to
// fill (one element's bytes; nil for none) and NaN are missing.
func FromArray(a *ndarray.Array, rows, cols int, fill []byte) (Grid, error) {
	dt := a.DType
	if rows*cols != a.Len() {
		return nil, fmt.Errorf("%d elements for a %d x %d picture", a.Len(), rows, cols)
	}
	value, err := reader(dt, a.Data)
	if err != nil {
		return nil, err
	}
	return &arrayGrid{rows: rows, cols: cols, value: value, data: a.Data, size: dt.Size, fill: string(fill)}, nil
}

func (g *arrayGrid) Size() (int, int) { return g.rows, g.cols }

func (g *arrayGrid) Value(i int) (float64, bool) {
	if g.fill != "" && string(g.data[i*g.size:(i+1)*g.size]) == g.fill {
		return 0, false
	}
	v := g.value(i)
	return v, !math.IsNaN(v)
}

// reader returns element i of little-endian data of type dt as a float64.
func reader(dt dtype.DataType, b []byte) (func(int) float64, error) {
	le := binary.LittleEndian
	switch {
	case dt.Kind == dtype.Bool || dt.Kind == dtype.Uint && dt.Size == 1:
		return func(i int) float64 { return float64(b[i]) }, nil
	case dt.Kind == dtype.Int && dt.Size == 1:
		return func(i int) float64 { return float64(int8(b[i])) }, nil
	case dt.Kind == dtype.Uint && dt.Size == 2:
		return func(i int) float64 { return float64(le.Uint16(b[2*i:])) }, nil
	case dt.Kind == dtype.Int && dt.Size == 2:
		return func(i int) float64 { return float64(int16(le.Uint16(b[2*i:]))) }, nil
	case dt.Kind == dtype.Uint && dt.Size == 4:
		return func(i int) float64 { return float64(le.Uint32(b[4*i:])) }, nil
	case dt.Kind == dtype.Int && dt.Size == 4:
		return func(i int) float64 { return float64(int32(le.Uint32(b[4*i:]))) }, nil
	case dt.Kind == dtype.Uint && dt.Size == 8:
		return func(i int) float64 { return float64(le.Uint64(b[8*i:])) }, nil
	case (dt.Kind == dtype.Int || dt.Kind == dtype.Datetime || dt.Kind == dtype.Timedelta) && dt.Size == 8:
		return func(i int) float64 { return float64(int64(le.Uint64(b[8*i:]))) }, nil
	case dt.Kind == dtype.Float && dt.Size == 2:
		return func(i int) float64 { return dtype.F16ToFloat64(le.Uint16(b[2*i:])) }, nil
	case dt.Kind == dtype.Float && dt.Size == 4:
		return func(i int) float64 { return float64(math.Float32frombits(le.Uint32(b[4*i:]))) }, nil
	case dt.Kind == dtype.Float && dt.Size == 8:
		return func(i int) float64 { return math.Float64frombits(le.Uint64(b[8*i:])) }, nil
	}
	return nil, fmt.Errorf("%w: data of type %s cannot be drawn (numbers and booleans can)", ErrUnsupported, dt.Name)
}

// floatGrid is a grid of float64 values, NaN for missing ones.
type floatGrid struct {
	rows, cols int
	v          []float64
}

func (g *floatGrid) Size() (int, int) { return g.rows, g.cols }

func (g *floatGrid) Value(i int) (float64, bool) { return g.v[i], !math.IsNaN(g.v[i]) }
