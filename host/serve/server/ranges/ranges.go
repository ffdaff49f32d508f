// Package ranges parses an HTTP Range header into the one byte range
// the gateway serves, and resolves it against a value's size.
package ranges

import (
	"strconv"
	"strings"
)

// rangeSpec is the one byte range of a Range header (RFC 9110 §14.1.2):
// "first-last", "first-" or the suffix "-length".
type Spec struct {
	first, last int64 // last < 0: to the end
	suffix      int64 // > 0 or zero with isSuffix: the last suffix bytes
	isSuffix    bool
}

// parseRange reads a Range header. It reports ok = false when the request
// is to be answered whole: no header, a unit other than bytes, a header
// that is not well-formed (which RFC 9110 lets a server ignore), or
// several ranges (answered 200 with the whole value rather than as
// multipart/byteranges, which no Zarr client asks for).
func ParseRange(h string) (Spec, bool) {
	unit, set, found := strings.Cut(strings.TrimSpace(h), "=")
	if !found || !strings.EqualFold(strings.TrimSpace(unit), "bytes") || strings.Contains(set, ",") {
		return Spec{}, false
	}
	a, b, found := strings.Cut(set, "-") // no spaces: RFC 9110 allows none around a range
	if !found {
		return Spec{}, false
	}
	if a == "" {
		n, ok := digits(b)
		return Spec{suffix: n, isSuffix: true}, ok
	}
	first, ok := digits(a)
	if !ok {
		return Spec{}, false
	}
	if b == "" {
		return Spec{first: first, last: -1}, true
	}
	last, ok := digits(b)
	if !ok || last < first {
		return Spec{}, false
	}
	return Spec{first: first, last: last}, true
}

// digits parses a non-negative decimal number of at most 18 digits.
func digits(s string) (int64, bool) {
	if s == "" || len(s) > 18 {
		return 0, false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return 0, false
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil
}

// resolve returns the range's [start, end) in a value of size bytes, and
// false when it is unsatisfiable there (416).
func (r Spec) Resolve(size int64) (start, end int64, ok bool) {
	if r.isSuffix {
		if r.suffix == 0 {
			return 0, 0, false
		}
		return max(size-r.suffix, 0), size, true
	}
	if r.first >= size {
		return 0, 0, false
	}
	end = size
	if r.last >= 0 && r.last+1 < size {
		end = r.last + 1
	}
	return r.first, end, true
}
