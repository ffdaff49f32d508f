package meta

import (
	"bytes"
	"encoding/json"
	"math/big"
	"strconv"
	"strings"
)

func decodeNumbers(raw json.RawMessage, v *any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	return dec.Decode(v)
}

// deepEqualJSON compares decoded JSON values; numbers are equal when their
// values are (1 == 1.0 == 1e0), compared exactly.
func deepEqualJSON(x, y any) bool {
	switch vx := x.(type) {
	case map[string]any:
		vy, ok := y.(map[string]any)
		if !ok || len(vx) != len(vy) {
			return false
		}
		for k, ex := range vx {
			ey, ok := vy[k]
			if !ok || !deepEqualJSON(ex, ey) {
				return false
			}
		}
		return true
	case []any:
		vy, ok := y.([]any)
		if !ok || len(vx) != len(vy) {
			return false
		}
		for i := range vx {
			if !deepEqualJSON(vx[i], vy[i]) {
				return false
			}
		}
		return true
	case json.Number:
		vy, ok := y.(json.Number)
		return ok && numbersEqual(vx, vy)
	}
	return x == y
}

func numbersEqual(x, y json.Number) bool {
	if x == y {
		return true
	}
	if hugeNumber(x) || hugeNumber(y) {
		return false // not worth an exact comparison; treat as different
	}
	rx, okx := new(big.Rat).SetString(string(x))
	ry, oky := new(big.Rat).SetString(string(y))
	return okx && oky && rx.Cmp(ry) == 0
}

// Bounds on the numbers compared exactly: beyond them a literal equals only
// its identical text, since big.Rat would expand it in full. Well past any
// float64 (about 1e308, 17 significant digits), so numbers a reader could
// tell apart still compare by value.
const (
	maxExactNumberDigits = 1024
	maxExactNumberExp    = 1024
)

// hugeNumber reports literals whose exact value would be expensive to
// build (big.Rat expands 1e999999999 in full).
func hugeNumber(n json.Number) bool {
	s := string(n)
	if len(s) > maxExactNumberDigits {
		return true
	}
	i := strings.IndexAny(s, "eE")
	if i < 0 {
		return false
	}
	exp, err := strconv.Atoi(s[i+1:])
	return err != nil || exp > maxExactNumberExp || exp < -maxExactNumberExp
}
