package server

import (
	"net/url"
	"reflect"
	"strings"
	"testing"
)

// The S3 API's parse of a query is url.ParseQuery's (its errors ignored,
// as URL.Query ignores them): the signature covers the query the
// verifier is given, and the request must act on that same query.
func FuzzParseQuery(f *testing.F) {
	for _, s := range []string{
		"", "a", "a=1&b=2&a=3", "&&=x&y=", "X-Amz-Credential=K%2F2025%2Fr%2Fs3%2Faws4_request&X-Amz-Signature=ab",
		"a=%zz&b=1", "a;b=1&c=2", "k=a+b%20c&k", "list-type=2&prefix=a%2Fb&delimiter=%2F", strings.Repeat("a=1&", 70),
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		want, _ := url.ParseQuery(raw)
		got := parseQuery(raw)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("parseQuery(%q) = %v, url.ParseQuery: %v", raw, got, want)
		}
		// a value appended to one parameter writes over no other's
		before := map[string][]string{}
		for k, vs := range got {
			before[k] = append([]string(nil), vs...)
		}
		for k := range got {
			got[k] = append(got[k], "appended")
		}
		for k, vs := range before {
			if !reflect.DeepEqual(got[k][:len(vs)], vs) {
				t.Fatalf("an append wrote over %q: %q, was %q", k, got[k], vs)
			}
		}
	})
}
