package numeric

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/zarrgw/zarrgw/core/dtype"
)

// ParseType parses a numcodecs dtype string: a numpy type string ("<i4",
// "f8", "|u1") or a name numpy also accepts ("int32", "float64"). The byte
// order is ignored: filters work on in-memory (little-endian) elements.
func ParseType(s string) (dtype.DataType, Type, error) {
	dt, _, err := dtype.ParseV2(s)
	if err != nil {
		var err3 error
		if dt, err3 = dtype.ParseV3(s); err3 != nil {
			return dtype.DataType{}, Type{}, fmt.Errorf("data type %q: %w", s, err)
		}
	}
	t, err := Of(dt)
	if err != nil {
		return dtype.DataType{}, Type{}, err
	}
	return dt, t, nil
}

// Scalar turns a JSON number into a Value the way Python reads it: a
// literal without fraction or exponent is an int, anything else a float.
func Scalar(raw json.RawMessage) (Value, error) {
	s := strings.TrimSpace(string(raw))
	if !strings.ContainsAny(s, ".eE") {
		if v, err := strconv.ParseInt(s, 10, 64); err == nil {
			return Int(v), nil
		}
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return Value{}, fmt.Errorf("not a number: %s", s)
	}
	return Float(f), nil
}
