package codectest

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/zarrgw/zarrgw/core/dtype"
	"github.com/zarrgw/zarrgw/core/ndarray"
)

// Floats returns the elements of a numeric or bool array as float64.
func Floats(t testing.TB, a *ndarray.Array) []float64 {
	t.Helper()
	n := a.Len()
	out := make([]float64, n)
	sz := a.DType.Size
	for i := range n {
		out[i] = element(t, a.DType, a.Data[i*sz:(i+1)*sz])
	}
	return out
}

func element(t testing.TB, dt dtype.DataType, b []byte) float64 {
	switch {
	case dt.Kind == dtype.Bool || dt.Kind == dtype.Uint && dt.Size == 1:
		return float64(b[0])
	case dt.Kind == dtype.Int && dt.Size == 1:
		return float64(int8(b[0]))
	case dt.Kind == dtype.Int && dt.Size == 2:
		return float64(int16(binary.LittleEndian.Uint16(b)))
	case dt.Kind == dtype.Uint && dt.Size == 2:
		return float64(binary.LittleEndian.Uint16(b))
	case dt.Kind == dtype.Int && dt.Size == 4:
		return float64(int32(binary.LittleEndian.Uint32(b)))
	case dt.Kind == dtype.Uint && dt.Size == 4:
		return float64(binary.LittleEndian.Uint32(b))
	case dt.Kind == dtype.Int && dt.Size == 8:
		return float64(int64(binary.LittleEndian.Uint64(b)))
	case dt.Kind == dtype.Uint && dt.Size == 8:
		return float64(binary.LittleEndian.Uint64(b))
	case dt.Kind == dtype.Float && dt.Size == 2:
		return HalfToFloat64(binary.LittleEndian.Uint16(b))
	case dt.Kind == dtype.Float && dt.Size == 4:
		return float64(math.Float32frombits(binary.LittleEndian.Uint32(b)))
	case dt.Kind == dtype.Float && dt.Size == 8:
		return math.Float64frombits(binary.LittleEndian.Uint64(b))
	}
	t.Fatalf("no numeric view of %s", dt)
	return 0
}

// HalfToFloat64 converts IEEE binary16 bits to a float64 (exact), written
// independently of the codecs under test.
func HalfToFloat64(h uint16) float64 {
	sign := 1.0
	if h&0x8000 != 0 {
		sign = -1
	}
	exp := int(h>>10) & 0x1f
	frac := float64(h & 0x3ff)
	switch exp {
	case 0:
		return sign * math.Ldexp(frac, -24)
	case 0x1f:
		if frac != 0 {
			return math.NaN()
		}
		return sign * math.Inf(1)
	}
	return sign * math.Ldexp(1024+frac, exp-25)
}

// ArangeChunk returns the expected values of one chunk of an "arange"
// expectation: chunk index idx of a chunk grid over shape. Positions
// outside the array are NaN (undefined content).
func ArangeChunk(e ArrayEntry, chunk, idx []int) []float64 {
	n := ndarray.NumElements(chunk)
	out := make([]float64, n)
	pos := make([]int, len(chunk))
	for k := range n {
		rem := k
		for d := len(chunk) - 1; d >= 0; d-- {
			pos[d] = idx[d]*chunk[d] + rem%chunk[d]
			rem /= chunk[d]
		}
		out[k] = arangeAt(e, pos)
	}
	return out
}

func arangeAt(e ArrayEntry, pos []int) float64 {
	flat := 0
	if e.Expect.IndexOrder == "F" {
		for d := len(pos) - 1; d >= 0; d-- {
			if pos[d] >= e.Shape[d] {
				return math.NaN()
			}
			flat = flat*e.Shape[d] + pos[d]
		}
	} else {
		for d := range pos {
			if pos[d] >= e.Shape[d] {
				return math.NaN()
			}
			flat = flat*e.Shape[d] + pos[d]
		}
	}
	return castLike(e.DType, e.Expect.Start+e.Expect.Step*float64(flat))
}

// castLike wraps integers the way numpy does for small integer types.
func castLike(typestr string, v float64) float64 {
	dt, _, err := dtype.ParseV2(typestr)
	if err != nil || (dt.Kind != dtype.Int && dt.Kind != dtype.Uint) || dt.Size >= 8 {
		return v
	}
	bits := uint(8 * dt.Size)
	u := uint64(int64(v)) & (1<<bits - 1)
	if dt.Kind == dtype.Int && u >= 1<<(bits-1) {
		return float64(int64(u) - 1<<bits)
	}
	return float64(u)
}

// CompareFloats fails unless got matches want (NaN in want: any value).
func CompareFloats(t testing.TB, got, want []float64, tol float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d values, want %d", len(got), len(want))
	}
	for i := range want {
		if math.IsNaN(want[i]) {
			continue
		}
		if math.Abs(got[i]-want[i]) > tol {
			t.Fatalf("element %d: got %v, want %v (all: %v)", i, got[i], want[i], got)
		}
	}
}

// ExpectedFloats returns a "values" expectation as float64 ("NaN" -> NaN).
func ExpectedFloats(t testing.TB, e ArrayEntry) []float64 {
	t.Helper()
	out := make([]float64, len(e.Expect.Values))
	for i, raw := range e.Expect.Values {
		switch string(raw) {
		case `"NaN"`:
			out[i] = math.NaN()
		case "true":
			out[i] = 1
		case "false":
			out[i] = 0
		default:
			if err := json.Unmarshal(raw, &out[i]); err != nil {
				t.Fatalf("value %d: %s: %v", i, raw, err)
			}
		}
	}
	return out
}

// ExpectedStrings returns a "values" expectation of strings.
func ExpectedStrings(t testing.TB, e ArrayEntry) []string {
	t.Helper()
	out := make([]string, len(e.Expect.Values))
	for i, raw := range e.Expect.Values {
		if err := json.Unmarshal(raw, &out[i]); err != nil {
			t.Fatalf("value %d: %s: %v", i, raw, err)
		}
	}
	return out
}

// StringsSHA256 is the canonical expected.json digest of string elements:
// per element a uint32 LE byte length then the bytes (trailing NULs of
// fixed-width values removed).
func StringsSHA256(values []string) string {
	h := sha256.New()
	var n [4]byte
	for _, v := range values {
		v = strings.TrimRight(v, "\x00")
		binary.LittleEndian.PutUint32(n[:], uint32(len(v)))
		h.Write(n[:])
		h.Write([]byte(v))
	}
	return hex.EncodeToString(h.Sum(nil))
}

// BytesSHA256 is the canonical digest of numeric elements: their
// little-endian bytes in C order.
func BytesSHA256(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}
