package codectest

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"unicode/utf8"

	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/dtype"
	"github.com/zarrgw/zarrgw/core/ndarray"
)

// Types returns one data type of every kind and size the engine knows.
func Types() []dtype.DataType {
	names := []string{"bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
		"float16", "float32", "float64", "complex64", "complex128", "r8", "r24", "r64", "string", "bytes"}
	var out []dtype.DataType
	for _, n := range names {
		out = append(out, dtype.Named(n))
	}
	for _, s := range []string{"|S5", "<U3", "<M8[ns]", "<m8[s]"} {
		d, _, err := dtype.ParseV2(s)
		if err != nil {
			panic(err)
		}
		out = append(out, d)
	}
	return out
}

// FixedTypes returns the fixed-size types of Types.
func FixedTypes() []dtype.DataType {
	var out []dtype.DataType
	for _, d := range Types() {
		if !d.Variable() {
			out = append(out, d)
		}
	}
	return out
}

// Shape returns a random shape of 0..maxDims dimensions, each 0..maxLen
// (a zero-length dimension only now and then).
func Shape(rng *rand.Rand, maxDims, maxLen int) []int {
	shape := make([]int, rng.IntN(maxDims+1))
	for i := range shape {
		shape[i] = 1 + rng.IntN(maxLen)
		if rng.IntN(20) == 0 {
			shape[i] = 0
		}
	}
	return shape
}

// Array returns an array of random elements; variable-length elements are
// random strings, some empty, some non-ASCII, some invalid UTF-8 when the
// type is bytes.
func Array(rng *rand.Rand, dt dtype.DataType, shape []int) *ndarray.Array {
	a := ndarray.New(dt, shape)
	if dt.Variable() {
		for i := range a.Strings {
			a.Strings[i] = randomString(rng, dt.Kind == dtype.Bytes)
		}
		return a
	}
	fillRandom(rng, a.Data)
	if dt.Kind == dtype.Bool {
		for i := range a.Data {
			a.Data[i] &= 1
		}
	}
	return a
}

func fillRandom(rng *rand.Rand, b []byte) {
	for i := 0; i < len(b); i += 8 {
		v := rng.Uint64()
		for j := i; j < min(i+8, len(b)); j++ {
			b[j] = byte(v)
			v >>= 8
		}
	}
}

// Bytes returns n random bytes; with compressible true they come from a
// small alphabet in runs, so compressors have something to find.
func Bytes(rng *rand.Rand, n int, compressible bool) []byte {
	b := make([]byte, n)
	if !compressible {
		fillRandom(rng, b)
		return b
	}
	for i := 0; i < n; {
		run := 1 + rng.IntN(16)
		v := byte(rng.IntN(4))
		for ; run > 0 && i < n; run-- {
			b[i] = v
			i++
		}
	}
	return b
}

func randomString(rng *rand.Rand, anyBytes bool) string {
	n := rng.IntN(12)
	if n == 0 {
		return ""
	}
	if anyBytes {
		b := make([]byte, n)
		fillRandom(rng, b)
		return string(b)
	}
	alphabet := []rune("abcXYZ 0\"\\\n\tйé€😀\x00\x7f")
	r := make([]rune, n)
	for i := range r {
		r[i] = alphabet[rng.IntN(len(alphabet))]
	}
	s := string(r)
	if !utf8.ValidString(s) {
		panic("invalid string")
	}
	return s
}

// ArraySpec is the spec of an array codec stage for a.
func ArraySpec(a *ndarray.Array) codec.Spec {
	return codec.Spec{DataType: a.DType, Shape: append([]int(nil), a.Shape...), DecodedSize: -1}
}

// BytesSpec is a bytes->bytes spec with the given exact decoded size (-1
// unknown) and bound (0 none).
func BytesSpec(decoded, max int64) codec.Spec {
	return codec.Spec{DataType: dtype.Named("uint8"), Shape: []int{max64(decoded, 0)}, DecodedSize: decoded, MaxDecodedSize: max}
}

func max64(a int64, b int) int {
	if a > int64(b) {
		return int(a)
	}
	return b
}

// Specs returns a spec of every type for every shape.
func Specs(types []dtype.DataType, shapes ...[]int) []codec.Spec {
	var out []codec.Spec
	for _, dt := range types {
		for _, s := range shapes {
			out = append(out, codec.Spec{DataType: dt, Shape: append([]int(nil), s...), DecodedSize: -1})
		}
	}
	return out
}

// Named returns the data types of the given v3 names.
func Named(names ...string) []dtype.DataType {
	out := make([]dtype.DataType, len(names))
	for i, n := range names {
		out[i] = dtype.Named(n)
	}
	return out
}

// FiniteFloats makes a chunk of spec in (float32 or float64) of finite
// values of moderate size, for lossy codecs whose round trip a NaN's
// payload or an infinity would not survive.
func FiniteFloats(rng *rand.Rand, in codec.Spec) *ndarray.Array {
	a := ndarray.New(in.DataType, in.Shape)
	for i := range a.Len() {
		v := (rng.Float64() - 0.5) * 2000
		if in.DataType.Size == 4 {
			binary.LittleEndian.PutUint32(a.Data[4*i:], math.Float32bits(float32(v)))
		} else {
			binary.LittleEndian.PutUint64(a.Data[8*i:], math.Float64bits(v))
		}
	}
	return a
}
