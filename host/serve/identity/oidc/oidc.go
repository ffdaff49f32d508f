// Package oidc verifies the JWTs (OpenID Connect ID tokens, or access
// tokens in the same form) of one identity provider, and matches their
// claims to the claims a principal is defined by.
//
// # Keys
//
// New contacts nothing, so the gateway starts while the provider is down.
// The first Verify reads the provider's discovery document, at Issuer +
// "/.well-known/openid-configuration", whose "issuer" must be Issuer
// exactly, and fetches the keys at its "jwks_uri"; they are cached. A
// token signed with a key that is not cached (its "kid" is unknown, or it
// has no kid and no cached key verifies it) makes the keys be fetched
// again, but at most once per Config.MinRefetch however many tokens ask,
// and callers asking at the same time share one fetch: keys the provider
// rotates in are taken up without a restart, while tokens with made-up key
// IDs cannot make the gateway hammer the provider. A discovery or key
// fetch that fails is tried again by a later Verify, under the same bound;
// keys already cached keep verifying meanwhile.
//
// # Checks
//
// A token is accepted when it is a JWS in compact form, signed by one of
// the provider's keys with an algorithm of Config.Algorithms (never HS256,
// HS384, HS512 or none, which New refuses: a provider's keys are public,
// and a shared-secret algorithm would let anyone who holds a public key
// sign); its "iss" is Issuer; its "aud" contains one of Config.Audience;
// its "exp" is present and not passed by more than Config.Leeway; its
// "nbf" and "iat", when present, are not later than now plus the leeway;
// and it has a "sub".
//
// # Claims
//
// Match compares a verified token's claims with a principal's:
//
//	Every listed claim must match. A claim matches a wanted value when
//	it is a string equal to it, a number or a boolean whose JSON text (as
//	the token writes it) equals it ("42", "true"), or a list that contains
//	such a string, number or boolean. A claim's name is first looked up
//	as a top-level claim, since names may contain dots (namespaced claims
//	such as "https://example.org/groups"), and only when there is no such
//	top-level claim as a dotted path into nested objects:
//	"realm_access.roles" is the "roles" member of the "realm_access"
//	claim, where Keycloak puts realm roles. A claim that is absent, null,
//	or an object never matches.
//
// # Errors
//
// Verify's errors are *Error values whose Reason (also Reason(err)) is one
// of the Reason constants, stable for counting failures by reason.
// ReasonProviderUnavailable means the provider could not be asked
// (discovery or keys), not that the token is bad. Error messages name the
// provider and the reason, and never contain the token or any part of it.
package oidc

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	gooidc "github.com/coreos/go-oidc/v3/oidc"
)

// Config describes one identity provider.
type Config struct {
	// Name is the identity_provider block's label; errors name it.
	Name string
	// Issuer is the provider's issuer URL, which a token's "iss" must
	// equal exactly; its discovery document is at Issuer +
	// "/.well-known/openid-configuration".
	Issuer string
	// Audience lists the values of which a token's "aud" must contain
	// one (typically the client ID the tokens are issued to).
	Audience []string
	// Algorithms is the allow-list of signature algorithms; nil means
	// RS256 RS384 RS512 PS256 PS384 PS512 ES256 ES384 ES512 EdDSA. The
	// HS* algorithms and none are refused even if listed.
	Algorithms []string
	// Leeway is the clock skew allowed on exp, nbf and iat; 0 means 30s.
	Leeway time.Duration
	// HTTPClient fetches the discovery document and the keys; nil means
	// a client with a 10 s timeout.
	HTTPClient *http.Client
	// MinRefetch is the least time between two fetches of the keys
	// asked for by tokens with unknown keys (and between two tries of a
	// failing discovery); 0 means 5s.
	MinRefetch time.Duration
}

const (
	defaultLeeway     = 30 * time.Second
	defaultMinRefetch = 5 * time.Second
	defaultTimeout    = 10 * time.Second
)

// defaultAlgorithms are the asymmetric JWS algorithms go-jose verifies.
var defaultAlgorithms = []string{"RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"}

// Identity is what a verified token says of its bearer.
type Identity struct {
	// Provider is the provider's Config.Name.
	Provider string
	// Issuer and Subject are the token's "iss" and "sub".
	Issuer, Subject string
	// Expiry is the token's "exp".
	Expiry time.Time
	// Claims are all the token's claims as JSON decodes them, except
	// that numbers are json.Number, which keeps their text for Match.
	Claims map[string]any
}

// Provider verifies the tokens of one identity provider. It is safe for
// concurrent use, and is meant to live as long as the configuration: its
// cache of keys is what bounds the fetches.
type Provider struct {
	name     string
	issuer   string
	audience []string
	algs     []string
	leeway   time.Duration
	keys     *keySet
	verifier *gooidc.IDTokenVerifier
}

// New checks cfg and returns its provider, without contacting it: the
// discovery document and the keys are fetched by the first Verify.
func New(cfg Config) (*Provider, error) {
	if strings.TrimSpace(cfg.Name) == "" {
		return nil, errors.New("oidc: an identity provider needs a name")
	}
	fail := func(format string, args ...any) error {
		return fmt.Errorf("identity provider %q: %s", cfg.Name, fmt.Sprintf(format, args...))
	}
	u, err := url.Parse(cfg.Issuer)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return nil, fail("issuer %q is not an http or https URL without query or fragment", cfg.Issuer)
	}
	if len(cfg.Audience) == 0 {
		return nil, fail("no audience: a token's aud must be checked against the client IDs it is meant for")
	}
	for _, a := range cfg.Audience {
		if a == "" {
			return nil, fail("an empty audience")
		}
	}
	algs := cfg.Algorithms
	if len(algs) == 0 {
		algs = defaultAlgorithms
	}
	for _, a := range algs {
		switch {
		case a == "none" || strings.HasPrefix(a, "HS"):
			return nil, fail("algorithm %q is refused: a provider's keys are public, and with a shared-secret algorithm (or none) anyone could sign", a)
		case !slices.Contains(defaultAlgorithms, a):
			return nil, fail("unknown algorithm %q (known: %s)", a, strings.Join(defaultAlgorithms, " "))
		}
	}
	if cfg.Leeway < 0 || cfg.MinRefetch < 0 {
		return nil, fail("leeway and the least time between key fetches cannot be negative")
	}
	leeway := cfg.Leeway
	if leeway == 0 {
		leeway = defaultLeeway
	}
	minRefetch := cfg.MinRefetch
	if minRefetch == 0 {
		minRefetch = defaultMinRefetch
	}
	client := &http.Client{Timeout: defaultTimeout, CheckRedirect: noDowngrade}
	if cfg.HTTPClient != nil {
		c := *cfg.HTTPClient
		if c.CheckRedirect == nil {
			c.CheckRedirect = noDowngrade
		}
		client = &c
	}
	p := &Provider{
		name:     cfg.Name,
		issuer:   cfg.Issuer,
		audience: slices.Clone(cfg.Audience),
		algs:     slices.Clone(algs),
		leeway:   leeway,
		keys: &keySet{name: cfg.Name, issuer: cfg.Issuer, client: client,
			algs: slices.Clone(algs), minRefetch: minRefetch},
	}
	// go-oidc checks the algorithm, the signature (through our key set)
	// and the issuer. The audience is checked here because go-oidc takes
	// a single client ID where the configuration may list several, and
	// the times are checked here because go-oidc allows no leeway on exp
	// (and a fixed 5 minutes on nbf): shifting its clock would move both
	// bounds the same way, honest for neither.
	p.verifier = gooidc.NewVerifier(cfg.Issuer, p.keys, &gooidc.Config{
		SupportedSigningAlgs: p.algs,
		SkipClientIDCheck:    true,
		SkipExpiryCheck:      true,
	})
	return p, nil
}

// Verify checks a token (see the package documentation for what is
// checked) and returns its identity. Its errors are *Error; Reason tells
// why. ctx bounds the wait for a fetch of the provider's keys, which
// other callers may share, and which goes on for them if ctx ends.
func (p *Provider) Verify(ctx context.Context, raw string) (*Identity, error) {
	alg, err := headerAlg(raw)
	if err != nil {
		return nil, p.fail(ReasonMalformed, "the token is not a JWT (three base64url parts whose header names an algorithm)")
	}
	if !slices.Contains(p.algs, alg) {
		return nil, p.fail(ReasonAlgorithm, "the token is signed with an algorithm that is not allowed (allowed: %s)", strings.Join(p.algs, " "))
	}
	res := &verifyResult{}
	tok, err := p.verifier.Verify(context.WithValue(ctx, resultKey{}, res), raw)
	if err != nil {
		// go-oidc's errors are text only, and some quote the token's
		// claims: they are classified, never passed on.
		return nil, p.classify(res)
	}
	var payload json.RawMessage
	if err := tok.Claims(&payload); err != nil {
		return nil, p.fail(ReasonMalformed, "the token's claims are not a JSON object")
	}
	claims, err := decodeClaims(payload)
	if err != nil {
		return nil, p.fail(ReasonMalformed, "the token's claims are not a JSON object")
	}
	if !slices.ContainsFunc(tok.Audience, func(a string) bool { return slices.Contains(p.audience, a) }) {
		return nil, p.fail(ReasonAudience, "the token's audience contains none of %s", strings.Join(p.audience, ", "))
	}
	now := time.Now()
	exp, ok, err := numericDate(claims, "exp")
	switch {
	case err != nil:
		return nil, p.fail(ReasonMalformed, "%v", err)
	case !ok:
		return nil, p.fail(ReasonMalformed, "the token has no exp claim")
	case now.After(exp.Add(p.leeway)):
		return nil, p.fail(ReasonExpired, "the token expired more than the leeway of %v ago", p.leeway)
	}
	for _, name := range []string{"nbf", "iat"} {
		at, ok, err := numericDate(claims, name)
		if err != nil {
			return nil, p.fail(ReasonMalformed, "%v", err)
		}
		if ok && at.After(now.Add(p.leeway)) {
			return nil, p.fail(ReasonNotYetValid, "the token's %s is later than now plus the leeway of %v", name, p.leeway)
		}
	}
	if tok.Subject == "" {
		return nil, p.fail(ReasonMalformed, "the token has no sub claim")
	}
	return &Identity{Provider: p.name, Issuer: tok.Issuer, Subject: tok.Subject, Expiry: exp, Claims: claims}, nil
}

// classify names why go-oidc refused a token, from what the key set saw
// of it: the key set's own error; nothing, when go-oidc could not parse
// the token before asking for its signature; or a verified payload, when
// what failed after the signature was the issuer check or the claims'
// form (both go-oidc's, in that order).
func (p *Provider) classify(res *verifyResult) error {
	switch {
	case res.err != nil:
		return res.err
	case res.payload == nil:
		return p.fail(ReasonMalformed, "the token is not a JWS in compact form with one signature")
	}
	var claims struct {
		Issuer any `json:"iss"`
	}
	if err := json.Unmarshal(res.payload, &claims); err == nil && claims.Issuer != p.issuer {
		return p.fail(ReasonIssuer, "the token was not issued by %s", p.issuer)
	}
	return p.fail(ReasonMalformed, "the token's claims are not valid OpenID Connect claims")
}

// fail is an error of this provider.
func (p *Provider) fail(reason, format string, args ...any) *Error {
	return &Error{Provider: p.name, Reason: reason, detail: fmt.Sprintf(format, args...)}
}

// decodeClaims decodes a token's claims, numbers as json.Number.
func decodeClaims(payload []byte) (map[string]any, error) {
	dec := json.NewDecoder(bytes.NewReader(payload))
	dec.UseNumber()
	var claims map[string]any
	if err := dec.Decode(&claims); err != nil {
		return nil, err
	}
	if claims == nil {
		return nil, errors.New("null claims")
	}
	return claims, nil
}

// maxNumericDate is the end of year 9999: a later time is not a date a
// provider means, and the float conversion would lose it.
const maxNumericDate = 253402300799

// numericDate reads a NumericDate claim (seconds since the epoch, maybe
// fractional): ok is false when it is absent.
func numericDate(claims map[string]any, name string) (t time.Time, ok bool, err error) {
	v, present := claims[name]
	if !present {
		return time.Time{}, false, nil
	}
	n, isNumber := v.(json.Number)
	if !isNumber {
		return time.Time{}, false, fmt.Errorf("the token's %s claim is not a number", name)
	}
	f, err := n.Float64()
	if err != nil || f < 0 || f > maxNumericDate {
		return time.Time{}, false, fmt.Errorf("the token's %s claim is not a time", name)
	}
	sec, frac := math.Modf(f)
	return time.Unix(int64(sec), int64(frac*1e9)), true, nil
}

// KeysGeneration changes whenever the provider's keys are fetched again:
// a token verified under an earlier generation may be signed by a key the
// provider no longer publishes, and is to be verified again.
func (p *Provider) KeysGeneration() uint64 {
	p.keys.mu.Lock()
	defer p.keys.mu.Unlock()
	return p.keys.generation
}

// noDowngrade follows redirects (at most 10, as net/http does), never from
// https to plain http: the discovery document and the keys decide who is
// who.
func noDowngrade(req *http.Request, via []*http.Request) error {
	if len(via) >= 10 {
		return errors.New("stopped after 10 redirects")
	}
	if req.URL.Scheme != "https" && via[0].URL.Scheme == "https" {
		return fmt.Errorf("refused a redirect from https to %s", req.URL.Scheme)
	}
	return nil
}
