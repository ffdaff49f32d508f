// Package size reads sizes in bytes as configuration writes them: a bare
// number of bytes, or one with a unit ("64MiB", "1.5GB"). The host's
// configuration, the CLI and extensions (the cache transformer) read the
// same grammar from here.
package size

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

var units = []struct {
	suffix string
	factor int64
}{
	{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40},
	{"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12}, {"B", 1},
}

// Parse reads a positive number of bytes, bare or with a unit, such as
// "1048576", "64MiB" or "1.5GB".
func Parse(text string) (int64, error) {
	s := strings.TrimSpace(text)
	factor := int64(1)
	for _, u := range units {
		if num, ok := strings.CutSuffix(s, u.suffix); ok {
			s, factor = strings.TrimSpace(num), u.factor
			break
		}
	}
	n, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, fmt.Errorf("%q is not a size (a number of bytes, or one with a unit such as \"512MiB\")", text)
	}
	return Whole(n * float64(factor))
}

// Whole is f bytes as an integer, if it is a positive whole number.
func Whole(f float64) (int64, error) {
	if f < 1 || f > math.MaxInt64 || f != math.Trunc(f) {
		return 0, fmt.Errorf("%v bytes is not a positive whole number", f)
	}
	return int64(f), nil
}
