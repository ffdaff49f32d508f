package gateway

import (
	"crypto/sha256"
	"crypto/subtle"
	"net/http"
	"slices"
	"strings"

	"github.com/zarrgw/zarrgw/host/config"
)

// principals knows the bearer tokens of a configuration by their SHA-256.
type principals struct {
	list []config.Principal
}

// anonymous is the principal of a request without a token.
const anonymous = ""

// tokenCookie carries the token of the browser pages (set by their script
// from session storage). It counts for reads only, so that a page of
// another site cannot write with it.
const tokenCookie = "zarrgw_token"

// identify returns the principal whose token the request carries
// (anonymous without one) and false when it carries a token nobody has
// or an Authorization header that is not a bearer token. Every known
// digest is compared, in constant time, so timing tells nothing of which.
func (p principals) identify(r *http.Request) (string, bool) {
	h := r.Header.Get("Authorization")
	if h == "" {
		if c, err := r.Cookie(tokenCookie); err == nil && c.Value != "" && (r.Method == http.MethodGet || r.Method == http.MethodHead) {
			return p.byToken(c.Value)
		}
		return anonymous, true
	}
	scheme, token, ok := strings.Cut(h, " ")
	token = strings.TrimSpace(token)
	if !ok || !strings.EqualFold(scheme, "Bearer") || token == "" {
		return anonymous, false
	}
	return p.byToken(token)
}

// byToken finds the principal of a token.
func (p principals) byToken(token string) (string, bool) {
	sum := sha256.Sum256([]byte(token))
	found := ""
	for _, pr := range p.list {
		if pr.HasToken && subtle.ConstantTimeCompare(sum[:], pr.TokenSHA256[:]) == 1 {
			found = pr.Name
		}
	}
	return found, found != ""
}

// allowed reports whether list (of an access block) admits principal:
// "*" admits anyone, a name admits the caller with that name's token.
func allowed(list []string, principal string) bool {
	return slices.Contains(list, config.Anyone) || principal != anonymous && slices.Contains(list, principal)
}
