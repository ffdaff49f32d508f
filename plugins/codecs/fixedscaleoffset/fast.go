package fixedscaleoffset

import (
	"encoding/binary"
	"math"

	"github.com/zarrgw/zarrgw/core/dtype"

	"github.com/zarrgw/zarrgw/plugins/codecs/internal/numeric"
)

// decodeFast handles the common layout, integers stored for float32 or
// float64 data, without the general element machinery. The arithmetic is
// the same: integer / scale + offset in float64 (numpy's true division of
// an integer array), then rounded to the data type. It reports false when
// the types are not of that kind.
func (c *Codec) decodeFast(dst, src []byte, dt, as numeric.Type, n int) bool {
	// Core kinds only: the registry's int4 or float8 go the general way.
	if (as.Kind != dtype.Int && as.Kind != dtype.Uint) || dt.Kind != dtype.Float || dt.Size == 2 {
		return false
	}
	scale, offset := c.scale.AsFloat(), c.offset.AsFloat()
	load := intLoader(as)
	if dt.Size == 4 {
		for i := range n {
			binary.LittleEndian.PutUint32(dst[4*i:], math.Float32bits(float32(load(src, i)/scale+offset)))
		}
		return true
	}
	for i := range n {
		binary.LittleEndian.PutUint64(dst[8*i:], math.Float64bits(load(src, i)/scale+offset))
	}
	return true
}

// intLoader returns a reader of element i of an integer array as float64.
func intLoader(t numeric.Type) func([]byte, int) float64 {
	signed := t.Kind == dtype.Int
	switch {
	case t.Size == 1 && signed:
		return func(b []byte, i int) float64 { return float64(int8(b[i])) }
	case t.Size == 1:
		return func(b []byte, i int) float64 { return float64(b[i]) }
	case t.Size == 2 && signed:
		return func(b []byte, i int) float64 { return float64(int16(binary.LittleEndian.Uint16(b[2*i:]))) }
	case t.Size == 2:
		return func(b []byte, i int) float64 { return float64(binary.LittleEndian.Uint16(b[2*i:])) }
	case t.Size == 4 && signed:
		return func(b []byte, i int) float64 { return float64(int32(binary.LittleEndian.Uint32(b[4*i:]))) }
	case t.Size == 4:
		return func(b []byte, i int) float64 { return float64(binary.LittleEndian.Uint32(b[4*i:])) }
	case signed:
		return func(b []byte, i int) float64 { return float64(int64(binary.LittleEndian.Uint64(b[8*i:]))) }
	}
	return func(b []byte, i int) float64 { return float64(binary.LittleEndian.Uint64(b[8*i:])) }
}
