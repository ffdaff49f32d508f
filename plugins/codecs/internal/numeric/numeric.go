// Package numeric does element arithmetic and casts with numpy's rules, for
// the numcodecs filters that compute in a data type (delta,
// fixedscaleoffset): integers wrap at their width, float32 and float16
// arithmetic rounds to that precision after every operation, and casts
// truncate floats toward zero.
package numeric

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/zarrgw/zarrgw/core/dtype"
)

// Value is one number: an integer (Bits, sign-extended or zero-extended to
// 64 bits according to Signed) or a float (F).
type Value struct {
	Float  bool
	Signed bool
	Bits   uint64
	F      float64
}

// Int is an integer value.
func Int(v int64) Value { return Value{Signed: true, Bits: uint64(v)} }

// Float is a float value.
func Float(f float64) Value { return Value{Float: true, F: f} }

// AsFloat converts a value to float64 (integers round to nearest).
func (v Value) AsFloat() float64 {
	switch {
	case v.Float:
		return v.F
	case v.Signed:
		return float64(int64(v.Bits))
	}
	return float64(v.Bits)
}

// Type is a numeric element type: int, uint or float of 1..8 bytes, one
// of the registry's sub-byte integers (int2..uint4, one per byte) or float
// formats (bfloat16, float8, ...; computed in float64, each result rounded
// to the format as ml_dtypes rounds it).
type Type struct {
	Kind   dtype.Kind
	Size   int
	bits   int                // width of a sub-byte integer; 0 for 8*Size (see width)
	format *dtype.FloatFormat // the float format of a MiniFloat
}

// Float64 is the type Python floats compute in.
var Float64 = Type{Kind: dtype.Float, Size: 8}

// Of returns the numeric type of dt, or an error for types numcodecs'
// arithmetic filters do not handle here (bool, complex, strings, ...).
func Of(dt dtype.DataType) (Type, error) {
	t := Type{Kind: dt.Kind, Size: dt.Size}
	switch {
	case dt.Kind == dtype.SubByteInt || dt.Kind == dtype.SubByteUint:
		t.bits = dtype.SubByteBits(dt)
		return t, nil
	case dt.Kind == dtype.MiniFloat:
		f, ok := dtype.FloatFormatOf(dt)
		if !ok {
			break
		}
		t.format = f
		return t, nil
	case (dt.Kind == dtype.Int || dt.Kind == dtype.Uint) && (dt.Size == 1 || dt.Size == 2 || dt.Size == 4 || dt.Size == 8):
		return t, nil
	case dt.Kind == dtype.Float && (dt.Size == 2 || dt.Size == 4 || dt.Size == 8):
		return t, nil
	}
	return Type{}, fmt.Errorf("data type %s is not an integer or float type", dt)
}

// width is the number of bits that carry a value: a sub-byte integer's
// own, 8*Size for every other type. Derived, not stored for all, so that a
// Type written as a literal ({Kind: dtype.Int, Size: 8}) is a whole one.
func (t Type) width() int {
	if t.bits != 0 {
		return t.bits
	}
	return 8 * t.Size
}

// IsFloat reports whether t is a float type.
func (t Type) IsFloat() bool { return t.Kind == dtype.Float || t.Kind == dtype.MiniFloat }

func (t Type) signed() bool { return t.Kind == dtype.Int || t.Kind == dtype.SubByteInt }

// Load reads one element from its little-endian bytes.
func (t Type) Load(b []byte) Value {
	var u uint64
	switch t.Size {
	case 1:
		u = uint64(b[0])
	case 2:
		u = uint64(binary.LittleEndian.Uint16(b))
	case 4:
		u = uint64(binary.LittleEndian.Uint32(b))
	default:
		u = binary.LittleEndian.Uint64(b)
	}
	if t.IsFloat() {
		return Float(t.bitsToFloat(u))
	}
	return t.intValue(u)
}

func (t Type) bitsToFloat(u uint64) float64 {
	if t.format != nil {
		return t.format.ToFloat64(u)
	}
	switch t.Size {
	case 2:
		return float64(HalfToFloat32(uint16(u)))
	case 4:
		return float64(math.Float32frombits(uint32(u)))
	}
	return math.Float64frombits(u)
}

// intValue extends the low bits of u (the type's width) to 64 bits.
func (t Type) intValue(u uint64) Value {
	shift := 64 - uint(t.width())
	if t.signed() {
		return Value{Signed: true, Bits: uint64(int64(u<<shift) >> shift)}
	}
	return Value{Bits: u << shift >> shift}
}

// Store writes v cast to t into b (little-endian).
func (t Type) Store(b []byte, v Value) {
	var u uint64
	if t.IsFloat() {
		u = t.floatBits(v)
	} else {
		u = t.Cast(v).Bits & (1<<t.width() - 1) // sub-byte integers: upper bits zero
	}
	switch t.Size {
	case 1:
		b[0] = byte(u)
	case 2:
		binary.LittleEndian.PutUint16(b, uint16(u))
	case 4:
		binary.LittleEndian.PutUint32(b, uint32(u))
	default:
		binary.LittleEndian.PutUint64(b, u)
	}
}

func (t Type) floatBits(v Value) uint64 {
	if t.format != nil {
		return t.format.FromFloat64(t.Cast(v).F)
	}
	switch t.Size {
	case 2:
		return uint64(Float64ToHalf(t.Cast(v).F))
	case 4:
		return uint64(math.Float32bits(float32(t.Cast(v).F)))
	}
	return math.Float64bits(t.Cast(v).F)
}

// Cast converts v to t: integers wrap, floats truncate toward zero when
// cast to integers, and float results are rounded to t's precision.
func (t Type) Cast(v Value) Value {
	if t.IsFloat() {
		return Float(t.round(t.intToFloat(v)))
	}
	if v.Float {
		return t.intValue(truncate(v.F))
	}
	return t.intValue(v.Bits)
}

// intToFloat converts an integer straight to t's precision (a single
// rounding, as C casts do); floats pass through.
func (t Type) intToFloat(v Value) float64 {
	if v.Float {
		return v.F
	}
	if t.Size == 4 && t.format == nil {
		if v.Signed {
			return float64(float32(int64(v.Bits)))
		}
		return float64(float32(v.Bits))
	}
	return v.AsFloat()
}

// truncate converts a float to integer bits, rounding toward zero. NaN,
// infinities and out-of-range values have no defined result in numpy; they
// give the bits of math.MinInt64, as x86 does.
func truncate(f float64) uint64 {
	switch {
	case f != f || f >= 0x1p64 || f < -0x1p63:
		return 1 << 63
	case f >= 0x1p63:
		return uint64(f)
	}
	return uint64(int64(f))
}

// round rounds a float to t's precision.
func (t Type) round(f float64) float64 {
	if t.format != nil {
		return t.format.ToFloat64(t.format.FromFloat64(f))
	}
	switch t.Size {
	case 2:
		return float64(HalfToFloat32(Float64ToHalf(f)))
	case 4:
		return float64(float32(f))
	}
	return f
}

// Sub returns a-b computed in t (both already of type t).
func (t Type) Sub(a, b Value) Value {
	if t.IsFloat() {
		return Float(t.round(a.F - b.F))
	}
	return t.intValue(a.Bits - b.Bits)
}

// Add returns a+b computed in t.
func (t Type) Add(a, b Value) Value {
	if t.IsFloat() {
		return Float(t.round(a.F + b.F))
	}
	return t.intValue(a.Bits + b.Bits)
}

// Mul returns a*b computed in t.
func (t Type) Mul(a, b Value) Value {
	if t.IsFloat() {
		return Float(t.round(a.F * b.F))
	}
	return t.intValue(a.Bits * b.Bits)
}

// Div returns a/b computed in t, a float type (numpy true division).
func (t Type) Div(a, b Value) Value { return Float(t.round(a.F / b.F)) }

// RoundEven rounds a float value to an integer, ties to even (np.around);
// integers pass through.
func RoundEven(v Value) Value {
	if v.Float {
		v.F = math.RoundToEven(v.F)
	}
	return v
}

// WithScalar is the type numpy computes `array op scalar` in, for an array
// of type t and a Python scalar (NEP 50: a Python int takes the array's
// type, a Python float keeps a float array's type and turns an integer
// array's into float64).
func (t Type) WithScalar(scalar Value) Type {
	if scalar.Float && !t.IsFloat() {
		return Float64
	}
	return t
}

// DivType is the type numpy's true division of a t array by a Python
// scalar gives: float types keep theirs, integers give float64.
func (t Type) DivType() Type {
	if t.IsFloat() {
		return t
	}
	return Float64
}
