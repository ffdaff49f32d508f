package dtype

import (
	"math"
	"math/big"
	"strconv"
	"strings"
)

// parseIntBits decodes an integer fill value of size bytes into its two's
// complement bit pattern. Integer literals are parsed exactly; integral
// floats such as 0.0 or 1e3 are accepted (zarr-python reads them) and
// converted exactly as well.
func parseIntBits(v jsonValue, size int, signed bool) (uint64, error) {
	switch v.kind {
	case jsonNumber:
		return parseIntToken(v.text, size, signed)
	case jsonString:
		if bits, ok := parseBitString(v.str, size); ok {
			return bits, nil
		}
	}
	return 0, errWant("an integer")
}

func parseIntToken(tok string, size int, signed bool) (uint64, error) {
	if !strings.ContainsAny(tok, ".eE") {
		return parseIntLiteral(tok, size, signed)
	}
	n, err := integralFloat(tok)
	if err != nil {
		return 0, err
	}
	return intInRange(n, size, signed)
}

func parseIntLiteral(tok string, size int, signed bool) (uint64, error) {
	if signed {
		n, err := strconv.ParseInt(tok, 10, 8*size)
		if err != nil {
			return 0, numErr(err)
		}
		return uint64(n), nil
	}
	if strings.HasPrefix(tok, "-") {
		if strings.Trim(tok[1:], "0") == "" {
			return 0, nil // "-0"
		}
		return 0, errOutOfRange
	}
	n, err := strconv.ParseUint(tok, 10, 8*size)
	if err != nil {
		return 0, numErr(err)
	}
	return n, nil
}

// integralFloat converts a number written with a fraction or exponent to
// an exact integer, failing when it has a fractional part.
func integralFloat(tok string) (*big.Int, error) {
	f, err := strconv.ParseFloat(tok, 64)
	if err != nil && !isRangeErr(err) {
		return nil, err
	}
	if math.Abs(f) > 0x1p65 {
		return nil, errOutOfRange // also guards big.Rat against 1e999999999
	}
	if math.Abs(f) < 0.5 && f != 0 {
		return nil, errNotIntegral
	}
	if f == 0 {
		if !isZeroNumber(jsonValue{kind: jsonNumber, text: tok}) {
			return nil, errNotIntegral // underflow such as 1e-400
		}
		return new(big.Int), nil
	}
	r, ok := new(big.Rat).SetString(tok)
	if !ok || !r.IsInt() {
		return nil, errNotIntegral
	}
	return r.Num(), nil
}

func intInRange(n *big.Int, size int, signed bool) (uint64, error) {
	bits := uint(8 * size)
	if signed {
		limit := new(big.Int).Lsh(big.NewInt(1), bits-1)
		if n.Cmp(limit) >= 0 || n.Cmp(new(big.Int).Neg(limit)) < 0 {
			return 0, errOutOfRange
		}
		return uint64(n.Int64()), nil
	}
	if n.Sign() < 0 || n.BitLen() > int(bits) {
		return 0, errOutOfRange
	}
	return n.Uint64(), nil
}

// formatInt writes the element b (little-endian, len(b) bytes) as a decimal.
func formatInt(b []byte, signed bool) string {
	u := getUint(b)
	if !signed {
		return strconv.FormatUint(u, 10)
	}
	shift := uint(64 - 8*len(b))
	return strconv.FormatInt(int64(u<<shift)>>shift, 10)
}
