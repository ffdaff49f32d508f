package server

import (
	"net/url"
	"strings"
)

// parseQuery is what url.ParseQuery makes of raw, its errors ignored as
// URL.Query ignores them (the pairs in error left out), with the values
// of a query of a few parameters (a presigned URL has eight) in one slice
// rather than one slice each. Each value is capped, so appending to one
// copies it.
func parseQuery(raw string) url.Values {
	n := strings.Count(raw, "&") + 1
	if n > 64 || strings.Contains(raw, ";") { // url.ParseQuery's own limits and refusals
		q, _ := url.ParseQuery(raw)
		return q
	}
	q := make(url.Values, n)
	vals := make([]string, 0, n) // never grows: one value per pair at most
	for raw != "" {
		var pair string
		pair, raw, _ = strings.Cut(raw, "&")
		if pair == "" {
			continue
		}
		k, v, _ := strings.Cut(pair, "=")
		k, err := url.QueryUnescape(k)
		if err != nil {
			continue
		}
		if v, err = url.QueryUnescape(v); err != nil {
			continue
		}
		if prev, ok := q[k]; ok {
			q[k] = append(prev, v)
			continue
		}
		vals = append(vals, v)
		q[k] = vals[len(vals)-1 : len(vals) : len(vals)]
	}
	return q
}
