package dtype

import (
	"math/big"
)

// IEEE 754 binary16 has no Go type; its bit patterns convert through the
// float16 entry of floatFormats, the same code as the registry's formats.
var float16Format = floatFormats["float16"]

// F16ToFloat64 converts binary16 bits to float64 exactly (every float16 is
// a float64). NaN payloads are not carried over.
func F16ToFloat64(h uint16) float64 { return float16Format.ToFloat64(uint64(h)) }

// parseF16 rounds the decimal JSON number tok to the nearest float16
// (ties to even) straight from the decimal, so a value close to a float16
// halfway point is not rounded twice (decimal -> float64 -> float16).
func parseF16(tok string) (uint16, error) {
	bits, err := parseMiniNumber(float16Format, tok)
	return uint16(bits), err
}

// roundHalfEven rounds a non-negative rational to an integer.
func roundHalfEven(q *big.Rat) int64 {
	n, rem := new(big.Int).QuoRem(q.Num(), q.Denom(), new(big.Int))
	twice := new(big.Int).Lsh(rem, 1)
	if c := twice.Cmp(q.Denom()); c > 0 || (c == 0 && n.Bit(0) == 1) {
		n.Add(n, big.NewInt(1))
	}
	return n.Int64()
}

// formatF16 writes a finite float16 as the shortest decimal that rounds
// back to the same bits.
func formatF16(h uint16) string { return formatMiniFloat(float16Format, uint64(h)) }
