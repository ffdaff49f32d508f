package server

import (
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/zarrgw/zarrgw/host/serve/identity"
)

// tokenCookie carries the token of the browser pages (set by their script
// from session storage). It counts for reads only, so that a page of
// another site cannot write with it.
const tokenCookie = "zarrgw_token"

// errNotBearer is an Authorization header of another scheme.
var errNotBearer = &identity.Failure{Reason: "not_bearer", Status: http.StatusUnauthorized,
	Msg: "the Authorization header is not a bearer token"}

// identify returns who a request of the key and array APIs, the pages or
// /metrics acts as: the bearer token of its Authorization header (a
// static token or an identity provider's JWT), or for reads the pages'
// cookie; anonymous without either. A failure is an *identity.Failure.
func (g *Server) identify(r *http.Request) (identity.Caller, error) {
	h := r.Header.Get("Authorization")
	if h == "" {
		if c, err := r.Cookie(tokenCookie); err == nil && c.Value != "" && (r.Method == http.MethodGet || r.Method == http.MethodHead) {
			return g.IDs.Bearer(r.Context(), c.Value)
		}
		return identity.Caller{Method: identity.Anonymous}, nil
	}
	scheme, token, ok := strings.Cut(h, " ")
	token = strings.TrimSpace(token)
	if !ok || !strings.EqualFold(scheme, "Bearer") || token == "" {
		return identity.Caller{}, errNotBearer
	}
	return g.IDs.Bearer(r.Context(), token)
}

// RateError is a request over a rate limit, Retry-After already set;
// each face words it (429, S3's SlowDown, STS's Throttling).
type RateError struct{ Decision identity.Decision }

func (e *RateError) Error() string {
	return fmt.Sprintf("over the rate limit of %s: retry after %s seconds", e.Decision.Limiter, retryAfterSeconds(e.Decision.Retry))
}

// admitRate applies the caller's rate limits: over one, the request is
// refused with Retry-After; within them, the response is written at the
// caller's byte rates (if any). Only the middleware calls it.
func (g *Server) admitRate(c *Call, caller identity.Caller) error {
	d := g.limits.Admit(caller, c.R.RemoteAddr)
	if !d.OK {
		g.Metrics.Limited(d.Limiter)
		c.W.Header().Set("Retry-After", retryAfterSeconds(d.Retry))
		return &RateError{d}
	}
	pace(c.W, c.R, d)
	return nil
}

// pace has the response to r written at the byte rates of the limits
// that admitted it (none without bytes_per_second).
func pace(w http.ResponseWriter, r *http.Request, d identity.Decision) {
	if rw, ok := w.(*response); ok && len(d.Bytes) > 0 {
		rw.throttle, rw.ctx = d.Bytes, r.Context()
	}
}

// retryAfterSeconds is a wait in whole seconds, at least one, as Retry-After
// gives it.
func retryAfterSeconds(d time.Duration) string {
	return strconv.Itoa(int(max(1, math.Ceil(d.Seconds()))))
}
