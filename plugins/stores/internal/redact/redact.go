// Package redact keeps secrets that travel in URLs (SAS tokens, signed
// query strings) out of error messages: Go's HTTP client quotes the whole
// URL of a request that failed to connect.
package redact

import (
	"errors"
	"net/url"
)

// URL returns u without its query, fragment and user information.
func URL(u *url.URL) string {
	if u == nil {
		return ""
	}
	c := *u
	c.User, c.RawQuery, c.ForceQuery, c.Fragment, c.RawFragment = nil, "", false, "", ""
	return c.String()
}

// Error strips the query of every *url.Error in err's chain, in place, and
// returns err.
func Error(err error) error {
	for e := err; e != nil; e = errors.Unwrap(e) {
		if ue, ok := e.(*url.Error); ok {
			if u, perr := url.Parse(ue.URL); perr == nil {
				ue.URL = URL(u)
			} else {
				ue.URL = "(unparsable URL)"
			}
		}
	}
	return err
}
