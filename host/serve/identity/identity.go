// Package identity answers "who is this" for both faces of the gateway:
// a bearer token (a static token known by its SHA-256, or an OpenID
// Connect ID token verified against an identity provider and matched to
// principals by its claims), an S3 access key, or an S3 session issued by
// AssumeRoleWithWebIdentity. It also holds the principals' rate limits.
//
// Subpackages hold the parts with their own standards: oidc (JWT
// verification, key sets, claim matching) and sts (sealed session
// credentials and the STS wire format).
package identity

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/zarrgw/zarrgw/host/runtime/config"
	"github.com/zarrgw/zarrgw/host/serve/identity/oidc"
)

// Method is how a caller authenticated; the access log and the metrics
// name it, never the credential.
type Method string

const (
	Anonymous Method = "anonymous"
	Token     Method = "token" // a static bearer token (header or the pages' cookie)
	JWT       Method = "jwt"   // an identity provider's ID token
	SigV4     Method = "sigv4" // an S3 request signed with a principal's key
	Session   Method = "sts"   // an S3 request signed with session credentials
)

// Caller is who a request acts as.
type Caller struct {
	// Principals are the principals the request acts as, in the
	// configuration's order: one for a token, an access key or a session;
	// every principal whose claims a JWT matches (none when it matches
	// none: the caller is then authenticated but has only what "*" has).
	Principals []string
	Method     Method
	// Subject and Provider name the JWT's or the session's subject and
	// identity provider; "" for other methods.
	Subject, Provider string
}

// Anonymous reports whether the request carries no credentials.
func (c Caller) Anonymous() bool { return c.Method == "" || c.Method == Anonymous }

// Name is the caller as the log names it: its principals, comma
// separated ("" for none).
func (c Caller) Name() string { return strings.Join(c.Principals, ",") }

// Allowed reports whether an access list admits the caller: "*" admits
// anyone, a name admits a caller acting as that principal.
func (c Caller) Allowed(list []string) bool {
	if slices.Contains(list, config.Anyone) {
		return true
	}
	for _, p := range c.Principals {
		if slices.Contains(list, p) {
			return true
		}
	}
	return false
}

// Failure is an authentication that failed: Reason labels the metrics
// ("unknown_token", "expired", "audience", ...), Status is the HTTP status
// the key and array APIs answer (401, or 503 when the identity provider
// cannot be reached). The message never holds a credential.
type Failure struct {
	Reason string
	Status int
	Msg    string
	// Err is the cause, for the log only: it may name the identity
	// provider's addresses or configured audiences, which callers have no
	// need to learn.
	Err error
}

func (f *Failure) Error() string { return f.Msg }

func (f *Failure) Unwrap() error { return f.Err }

// Detailed returns err with a Failure's cause in its text, for the log.
func Detailed(err error) error {
	var f *Failure
	if errors.As(err, &f) && f.Err != nil {
		return fmt.Errorf("%s (%w)", f.Msg, f.Err)
	}
	return err
}

// publicText is what a caller is told of a refused JWT, by reason.
var publicText = map[string]string{
	"malformed":            "the token is not a well-formed JWT",
	"algorithm":            "the token's signature algorithm is not accepted",
	"unknown_key":          "the token is signed with a key the identity provider does not publish",
	"signature":            "the token's signature does not verify",
	"issuer":               "the token's issuer is not a configured identity provider",
	"audience":             "the token is not for this gateway's audience",
	"expired":              "the token has expired",
	"not_yet_valid":        "the token is not valid yet",
	"provider_unavailable": "the identity provider cannot be reached; try again later",
}

// ReasonOf returns the reason of a Failure in err's chain, or "error".
func ReasonOf(err error) string {
	var f *Failure
	if errors.As(err, &f) {
		return f.Reason
	}
	return "error"
}

// Directory knows the principals of a configuration and how to recognise
// them.
type Directory struct {
	principals []config.Principal
	providers  map[string]*oidc.Provider
	byIssuer   map[string]string // issuer -> provider name
	verified   verifiedTokens
}

// New builds the directory of cfg. Identity providers are not contacted
// until a token names them, so the gateway starts while they are down.
func New(cfg *config.Config, client *http.Client) (*Directory, error) {
	d := &Directory{principals: cfg.Principals, providers: map[string]*oidc.Provider{}, byIssuer: map[string]string{}}
	for _, ip := range cfg.IdentityProviders {
		p, err := oidc.New(oidc.Config{Name: ip.Name, Issuer: ip.Issuer, Audience: ip.Audience,
			Algorithms: ip.Algorithms, Leeway: ip.Leeway, HTTPClient: client})
		if err != nil {
			return nil, fmt.Errorf("identity_provider %q (%s): %w", ip.Name, config.At(ip.DeclRange), err)
		}
		d.providers[ip.Name] = p
		d.byIssuer[ip.Issuer] = ip.Name
	}
	return d, nil
}

// HasBearer reports whether any principal can be named by a bearer
// credential (a token or an identity provider's JWT).
func (d *Directory) HasBearer() bool {
	for _, p := range d.principals {
		if p.HasToken || p.IdentityProvider != "" {
			return true
		}
	}
	return false
}

// Bearer identifies the caller of a bearer token: a static token first
// (every digest compared in constant time), then an ID token of the
// identity provider its issuer names.
func (d *Directory) Bearer(ctx context.Context, token string) (Caller, error) {
	sum := sha256.Sum256([]byte(token))
	if name, ok := d.byToken(sum); ok {
		return Caller{Principals: []string{name}, Method: Token}, nil
	}
	if len(d.providers) == 0 || !oidc.LooksLikeJWT(token) {
		return Caller{}, &Failure{Reason: "unknown_token", Status: http.StatusUnauthorized, Msg: "the bearer token is not known"}
	}
	if c, ok := d.verified.get(sum, time.Now(), d.keysGeneration); ok {
		return c, nil
	}
	id, err := d.verify(ctx, token)
	if err != nil {
		return Caller{}, err
	}
	c := Caller{Principals: d.matching(id), Method: JWT, Subject: id.Subject, Provider: id.Provider}
	d.verified.put(sum, c, id.Expiry, d.keysGeneration(id.Provider))
	return c, nil
}

// keysGeneration is the generation of a provider's keys (see
// oidc.Provider.KeysGeneration).
func (d *Directory) keysGeneration(provider string) uint64 {
	return d.providers[provider].KeysGeneration()
}

// verifiedTokens remembers the callers of JWTs verified already, by the
// token's SHA-256, until the token's expiry: a client sends the same token
// with every request, and a signature check costs more than the rest of a
// small read. A JWT cannot be revoked before its expiry, so keeping the
// answer that long changes nothing of what is accepted, as long as the
// provider's keys are the same: once they are fetched again (a rotation),
// every token is verified again, and one of a key withdrawn is refused.
type verifiedTokens struct {
	mu sync.Mutex
	m  map[[32]byte]verifiedToken
}

type verifiedToken struct {
	caller     Caller
	until      time.Time
	generation uint64 // of the provider's keys it was verified with
}

// maxVerified bounds the tokens kept; when full, the map starts again.
const maxVerified = 8192

func (v *verifiedTokens) get(sum [32]byte, now time.Time, generation func(provider string) uint64) (Caller, bool) {
	v.mu.Lock()
	e, ok := v.m[sum]
	v.mu.Unlock()
	if !ok || !now.Before(e.until) || generation(e.caller.Provider) != e.generation {
		return Caller{}, false
	}
	return e.caller, true
}

func (v *verifiedTokens) put(sum [32]byte, c Caller, until time.Time, generation uint64) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.m == nil || len(v.m) >= maxVerified {
		v.m = map[[32]byte]verifiedToken{}
	}
	v.m[sum] = verifiedToken{caller: c, until: until, generation: generation}
}

// verify checks a JWT with the provider whose issuer it claims (read
// before verification only to choose the provider; the provider's
// verifier checks it again).
func (d *Directory) verify(ctx context.Context, token string) (*oidc.Identity, error) {
	name, ok := d.byIssuer[unverifiedIssuer(token)]
	if !ok {
		return nil, &Failure{Reason: "issuer", Status: http.StatusUnauthorized, Msg: "the token's issuer is not a configured identity provider"}
	}
	id, err := d.providers[name].Verify(ctx, token)
	if err != nil {
		reason := oidc.Reason(err)
		status := http.StatusUnauthorized
		if reason == "provider_unavailable" {
			status = http.StatusServiceUnavailable
		}
		msg, ok := publicText[reason]
		if !ok {
			msg = "the token is not accepted"
		}
		return nil, &Failure{Reason: reason, Status: status, Msg: msg, Err: err}
	}
	return id, nil
}

// matching returns the principals of id's provider whose claims id
// satisfies.
func (d *Directory) matching(id *oidc.Identity) []string {
	var out []string
	for _, p := range d.principals {
		if p.IdentityProvider == id.Provider && oidc.Match(id.Claims, p.Claims) {
			out = append(out, p.Name)
		}
	}
	return out
}

// WebIdentity verifies a web identity token for principal (STS): the
// principal must be defined by claims, and the token must be of its
// identity provider and match them.
func (d *Directory) WebIdentity(ctx context.Context, principal, token string) (*oidc.Identity, error) {
	i := slices.IndexFunc(d.principals, func(p config.Principal) bool { return p.Name == principal })
	if i < 0 || d.principals[i].IdentityProvider == "" {
		return nil, &Failure{Reason: "role", Status: http.StatusForbidden,
			Msg: fmt.Sprintf("principal %q is not defined by an identity provider's claims, so no web identity can assume it", principal)}
	}
	p := d.principals[i]
	if !oidc.LooksLikeJWT(token) {
		return nil, &Failure{Reason: "malformed", Status: http.StatusBadRequest, Msg: "the web identity token is not a JWT"}
	}
	id, err := d.verify(ctx, token)
	if err != nil {
		return nil, err
	}
	if id.Provider != p.IdentityProvider || !oidc.Match(id.Claims, p.Claims) {
		return nil, &Failure{Reason: "claims", Status: http.StatusForbidden,
			Msg: fmt.Sprintf("the web identity does not have the claims of principal %q", principal)}
	}
	return id, nil
}

// byToken finds the principal of a static token by its SHA-256.
func (d *Directory) byToken(sum [32]byte) (string, bool) {
	found := ""
	for _, pr := range d.principals {
		if pr.HasToken && subtle.ConstantTimeCompare(sum[:], pr.TokenSHA256[:]) == 1 {
			found = pr.Name
		}
	}
	return found, found != ""
}

// unverifiedIssuer reads a JWT's "iss" without verifying anything: only
// to choose the provider whose verifier then checks the whole token.
func unverifiedIssuer(token string) string {
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return ""
	}
	payload, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		return ""
	}
	var claims struct {
		Issuer string `json:"iss"`
	}
	if json.Unmarshal(payload, &claims) != nil {
		return ""
	}
	return claims.Issuer
}
