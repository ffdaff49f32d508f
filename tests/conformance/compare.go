package conformance

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/zarrgw/zarrgw/core/dtype"
	"github.com/zarrgw/zarrgw/core/ndarray"
	"github.com/zarrgw/zarrgw/tests/support/fixtures"
)

// canonicalSHA256 hashes a decoded array as expected.json's _format
// defines: numbers and bools as little-endian element bytes in C order;
// strings as u32 LE length + UTF-8 bytes (fixed-width without trailing NULs).
func canonicalSHA256(a *ndarray.Array) string {
	h := sha256.New()
	switch a.DType.Kind {
	case dtype.String, dtype.Bytes, dtype.FixedBytes, dtype.FixedUnicode:
		var n [4]byte
		for i := 0; i < a.Len(); i++ {
			s, _ := a.At(i).(string)
			binary.LittleEndian.PutUint32(n[:], uint32(len(s)))
			h.Write(n[:])
			h.Write([]byte(s))
		}
	default:
		h.Write(a.Data)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// check compares a decoded array with its expectation.
func check(a *ndarray.Array, e fixtures.ArrayExpectation) error {
	x := e.Expect
	if fmt.Sprint(a.Shape) != fmt.Sprint(e.Shape) {
		return fmt.Errorf("shape %v, want %v", a.Shape, e.Shape)
	}
	switch x.Kind {
	case "values":
		return checkValues(a, x)
	case "arange":
		return checkArange(a, x)
	case "fill":
		for i := 0; i < a.Len(); i++ {
			if err := equal(a.At(i), x.Value, 0); err != nil {
				return fmt.Errorf("element %d: %w", i, err)
			}
		}
	case "sha256":
		if err := checkSamples(a, x); err != nil {
			return err
		}
	default:
		return fmt.Errorf("no trusted expectation (kind %q)", x.Kind)
	}
	if x.SHA256 != "" && len(x.ImplementationDefined) == 0 {
		if got := canonicalSHA256(a); got != x.SHA256 {
			return fmt.Errorf("sha256 %s, want %s", got, x.SHA256)
		}
	}
	return nil
}

func checkValues(a *ndarray.Array, x fixtures.Expectation) error {
	if len(x.Values) != a.Len() {
		return fmt.Errorf("%d elements, want %d", a.Len(), len(x.Values))
	}
	for i, want := range x.Values {
		err := equal(a.At(i), want, x.Tolerance)
		if err != nil {
			for _, alt := range x.Alternatives[strconv.Itoa(i)] {
				if equal(a.At(i), alt, x.Tolerance) == nil {
					err = nil
				}
			}
		}
		if err != nil {
			return fmt.Errorf("element %d: %w", i, err)
		}
	}
	return nil
}

func checkArange(a *ndarray.Array, x fixtures.Expectation) error {
	start, _ := strconv.ParseFloat(string(x.Start), 64)
	step := 1.0
	if x.Step != "" {
		step, _ = strconv.ParseFloat(string(x.Step), 64)
	}
	n := a.Len()
	for i := 0; i < n; i++ {
		k := i
		if x.IndexOrder == "F" {
			k = fortranIndex(a.Shape, i)
		}
		want := wrap(a.DType, start+step*float64(k))
		if err := equal(a.At(i), json.RawMessage(want), 0); err != nil {
			return fmt.Errorf("element %d: %w", i, err)
		}
	}
	return nil
}

// fortranIndex is the column-major flat index of C-order flat index i.
func fortranIndex(shape []int, i int) int {
	idx := make([]int, len(shape))
	for d := len(shape) - 1; d >= 0; d-- {
		idx[d] = i % shape[d]
		i /= shape[d]
	}
	k, mul := 0, 1
	for d := range shape {
		k += idx[d] * mul
		mul *= shape[d]
	}
	return k
}

// wrap casts v to the data type as numpy does and renders it as JSON.
func wrap(dt dtype.DataType, v float64) string {
	switch dt.Kind {
	case dtype.Int:
		bits := uint(dt.Size * 8)
		u := uint64(int64(v)) & (1<<bits - 1)
		if u&(1<<(bits-1)) != 0 {
			return strconv.FormatInt(int64(u)-int64(1<<bits), 10)
		}
		return strconv.FormatUint(u, 10)
	case dtype.Uint:
		bits := uint(dt.Size * 8)
		if bits == 64 {
			return strconv.FormatUint(uint64(v), 10)
		}
		return strconv.FormatUint(uint64(int64(v))&(1<<bits-1), 10)
	case dtype.Float:
		if dt.Size == 4 {
			v = float64(float32(v))
		}
		return strconv.FormatFloat(v, 'g', -1, 64)
	case dtype.Bool:
		return strconv.FormatBool(v != 0)
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

func checkSamples(a *ndarray.Array, x fixtures.Expectation) error {
	if x.Count != 0 && x.Count != a.Len() {
		return fmt.Errorf("%d elements, want %d", a.Len(), x.Count)
	}
	for i, want := range x.Head {
		if err := equal(a.At(i), want, 0); err != nil {
			return fmt.Errorf("head element %d: %w", i, err)
		}
	}
	for key, want := range x.Samples {
		i, err := sampleIndex(a.Shape, key)
		if err != nil {
			return err
		}
		if err := equal(a.At(i), want, 0); err != nil {
			return fmt.Errorf("sample %s: %w", key, err)
		}
	}
	return nil
}

func sampleIndex(shape []int, key string) (int, error) {
	if !strings.HasPrefix(key, "[") {
		return strconv.Atoi(key)
	}
	var idx []int
	if err := json.Unmarshal([]byte(key), &idx); err != nil || len(idx) != len(shape) {
		return 0, fmt.Errorf("bad sample index %q", key)
	}
	k := 0
	for d := range shape {
		k = k*shape[d] + idx[d]
	}
	return k, nil
}

// equal compares a decoded element with a JSON expectation.
func equal(got any, want json.RawMessage, tol float64) error {
	var w any
	d := json.NewDecoder(strings.NewReader(string(want)))
	d.UseNumber()
	if err := d.Decode(&w); err != nil {
		return fmt.Errorf("bad expectation %s: %w", want, err)
	}
	if w == nil {
		return fmt.Errorf("got %v, want null", got)
	}
	switch g := got.(type) {
	case bool:
		if b, ok := w.(bool); ok && b == g {
			return nil
		}
	case string:
		if s, ok := w.(string); ok && s == g {
			return nil
		}
	case int64:
		if n, ok := w.(json.Number); ok && string(n) == strconv.FormatInt(g, 10) {
			return nil
		}
		if f, ok := number(w); ok && float64(g) == f && math.Abs(f) < 1<<53 {
			return nil
		}
	case uint64:
		if n, ok := w.(json.Number); ok && string(n) == strconv.FormatUint(g, 10) {
			return nil
		}
		if f, ok := number(w); ok && float64(g) == f && f < 1<<53 {
			return nil
		}
	case float64:
		if floatEqual(g, w, tol) {
			return nil
		}
	case complex128:
		if pair, ok := w.([]any); ok && len(pair) == 2 && floatEqual(real(g), pair[0], tol) && floatEqual(imag(g), pair[1], tol) {
			return nil
		}
	}
	return fmt.Errorf("got %v, want %s", got, want)
}

func number(w any) (float64, bool) {
	n, ok := w.(json.Number)
	if !ok {
		return 0, false
	}
	f, err := n.Float64()
	return f, err == nil
}

func floatEqual(g float64, w any, tol float64) bool {
	if s, ok := w.(string); ok {
		switch s {
		case "NaN":
			return math.IsNaN(g)
		case "Infinity":
			return math.IsInf(g, 1)
		case "-Infinity":
			return math.IsInf(g, -1)
		}
		return false
	}
	f, ok := number(w)
	if !ok {
		return false
	}
	if tol > 0 {
		return math.Abs(g-f) <= tol
	}
	return g == f
}
