package gateway

import (
	"errors"
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
func (g *Gateway) identify(r *http.Request) (identity.Caller, error) {
	h := r.Header.Get("Authorization")
	if h == "" {
		if c, err := r.Cookie(tokenCookie); err == nil && c.Value != "" && (r.Method == http.MethodGet || r.Method == http.MethodHead) {
			return g.ids.Bearer(r.Context(), c.Value)
		}
		return identity.Caller{Method: identity.Anonymous}, nil
	}
	scheme, token, ok := strings.Cut(h, " ")
	token = strings.TrimSpace(token)
	if !ok || !strings.EqualFold(scheme, "Bearer") || token == "" {
		return identity.Caller{}, errNotBearer
	}
	return g.ids.Bearer(r.Context(), token)
}

// who identifies and admits a request: false when it has been answered
// (401 for credentials not recognised, 503 when the identity provider
// cannot be reached, 429 over a rate limit).
func (g *Gateway) who(w http.ResponseWriter, r *http.Request, info *requestInfo) (identity.Caller, bool) {
	c, err := g.identify(r)
	if err != nil {
		g.authFailed(w, r, info, err)
		return c, false
	}
	info.caller = c
	return c, g.admitRate(w, r, info, c)
}

// authFailed answers a failed authentication and counts it by reason. It
// is charged to the client address's anonymous bucket (when there is an
// anonymous_rate_limit): made-up tokens cost a signature check each, and
// must not come for free. The client is told the reason, the log the
// cause too.
func (g *Gateway) authFailed(w http.ResponseWriter, r *http.Request, info *requestInfo, err error) {
	g.metrics.authFailure(identity.ReasonOf(err))
	if !g.admitRate(w, r, info, identity.Caller{Method: identity.Anonymous}) {
		return
	}
	var f *identity.Failure
	if errors.As(err, &f) && f.Status == http.StatusServiceUnavailable {
		g.fail(w, info, &requestError{http.StatusServiceUnavailable, f.Msg})
	} else {
		g.unauthorized(w, info, `error="invalid_token"`, err.Error())
	}
	info.err = identity.Detailed(err)
}

// admitRate applies the caller's rate limits: over one, the request is
// answered 429 with Retry-After; within them, the response is written at
// the caller's byte rates (if any).
func (g *Gateway) admitRate(w http.ResponseWriter, r *http.Request, info *requestInfo, c identity.Caller) bool {
	d := g.limits.Admit(c, r.RemoteAddr)
	if !d.OK {
		g.metrics.limited(d.Limiter)
		w.Header().Set("Retry-After", retryAfterSeconds(d.Retry))
		g.fail(w, info, &requestError{http.StatusTooManyRequests,
			fmt.Sprintf("over the rate limit of %s: retry after %s seconds", d.Limiter, retryAfterSeconds(d.Retry))})
		return false
	}
	pace(w, r, d)
	return true
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
