package oidc_test

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"

	"github.com/zarrgw/zarrgw/host/serve/identity/oidc"
)

// idpServer is an identity provider served by httptest: a discovery document
// and a key set, both of which the test can change or break, and which
// count the requests they answer.
type idpServer struct {
	srv    *httptest.Server
	issuer string

	mu              sync.Mutex
	keys            []jose.JSONWebKey // published (public halves)
	discoveryIssuer string            // what the document names; the issuer unless set
	discoveryStatus int               // a status to fail discovery with; 0 answers
	jwksStatus      int               // the same for the key set
	block           chan struct{}     // when set, discovery waits for it to close

	discoveries atomic.Int64
	jwksFetches atomic.Int64
}

func newIdP(t testing.TB) *idpServer {
	t.Helper()
	p := &idpServer{}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /realms/test/.well-known/openid-configuration", func(w http.ResponseWriter, r *http.Request) {
		p.discoveries.Add(1)
		p.mu.Lock()
		status, iss, block := p.discoveryStatus, p.discoveryIssuer, p.block
		p.mu.Unlock()
		if block != nil {
			<-block
		}
		if status != 0 {
			http.Error(w, "down", status)
			return
		}
		if iss == "" {
			iss = p.issuer
		}
		writeJSON(w, map[string]any{"issuer": iss, "jwks_uri": p.srv.URL + "/realms/test/keys",
			"id_token_signing_alg_values_supported": []string{"RS256"}})
	})
	mux.HandleFunc("GET /realms/test/keys", func(w http.ResponseWriter, r *http.Request) {
		p.jwksFetches.Add(1)
		p.mu.Lock()
		status, keys := p.jwksStatus, p.keys
		p.mu.Unlock()
		if status != 0 {
			http.Error(w, "down", status)
			return
		}
		writeJSON(w, jose.JSONWebKeySet{Keys: keys})
	})
	p.srv = httptest.NewServer(mux)
	t.Cleanup(p.srv.Close)
	p.issuer = p.srv.URL + "/realms/test"
	return p
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

// publish replaces the published keys with those of signers.
func (p *idpServer) publish(signers ...*signer) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.keys = nil
	for _, s := range signers {
		p.keys = append(p.keys, s.public())
	}
}

func (p *idpServer) set(f func(p *idpServer)) {
	p.mu.Lock()
	defer p.mu.Unlock()
	f(p)
}

// provider is a Provider of the server's issuer for audience "zarrgw".
func (p *idpServer) provider(t testing.TB, mod func(*oidc.Config)) *oidc.Provider {
	t.Helper()
	cfg := oidc.Config{Name: "corp", Issuer: p.issuer, Audience: []string{"zarrgw"}, HTTPClient: p.srv.Client()}
	if mod != nil {
		mod(&cfg)
	}
	prov, err := oidc.New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return prov
}

// signer signs tokens with one private key.
type signer struct {
	alg jose.SignatureAlgorithm
	key crypto.Signer
	kid string // "" signs without a key ID
}

func newSigner(t testing.TB, alg jose.SignatureAlgorithm) *signer {
	t.Helper()
	var key crypto.Signer
	var err error
	switch alg {
	case jose.RS256, jose.PS256:
		key, err = rsa.GenerateKey(rand.Reader, 2048)
	case jose.ES256:
		key, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	case jose.EdDSA:
		_, key, err = ed25519.GenerateKey(rand.Reader)
	default:
		t.Fatalf("no key for %s", alg)
	}
	if err != nil {
		t.Fatal(err)
	}
	return &signer{alg: alg, key: key, kid: randomID()}
}

func randomID() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

func (s *signer) public() jose.JSONWebKey {
	return jose.JSONWebKey{Key: s.key.Public(), KeyID: s.kid, Algorithm: string(s.alg), Use: "sig"}
}

// sign makes a token of claims, with this signer's key ID (kid, if not
// "", overrides it).
func (s *signer) sign(t testing.TB, claims map[string]any, kid ...string) string {
	t.Helper()
	id := s.kid
	if len(kid) > 0 {
		id = kid[0]
	}
	var key any = s.key
	if id != "" {
		key = jose.JSONWebKey{Key: s.key, KeyID: id}
	}
	sig, err := jose.NewSigner(jose.SigningKey{Algorithm: s.alg, Key: key}, (&jose.SignerOptions{}).WithType("JWT"))
	if err != nil {
		t.Fatal(err)
	}
	return compact(t, sig, claims)
}

func compact(t testing.TB, sig jose.Signer, claims map[string]any) string {
	t.Helper()
	payload, err := json.Marshal(claims)
	if err != nil {
		t.Fatal(err)
	}
	jws, err := sig.Sign(payload)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := jws.CompactSerialize()
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// claims are valid claims of the server's issuer for audience zarrgw; mod changes
// them (a nil value deletes a claim).
func (p *idpServer) claims(mod map[string]any) map[string]any {
	now := time.Now()
	c := map[string]any{
		"iss": p.issuer, "sub": "user-1", "aud": "zarrgw",
		"exp": now.Add(time.Hour).Unix(), "iat": now.Unix(),
		"email": "ana@example.org", "groups": []string{"analysts", "readers"},
	}
	for k, v := range mod {
		if v == nil {
			delete(c, k)
		} else {
			c[k] = v
		}
	}
	return c
}

// refused verifies tok, which must fail for reason, with a message that
// names the provider and quotes no part of the token.
func refused(t *testing.T, p *oidc.Provider, tok, reason string) error {
	t.Helper()
	id, err := p.Verify(context.Background(), tok)
	if err == nil {
		t.Fatalf("token accepted (%+v), want %s", id, reason)
	}
	if got := oidc.Reason(err); got != reason {
		t.Fatalf("reason %q, want %q: %v", got, reason, err)
	}
	var e *oidc.Error
	if !errors.As(err, &e) || e.Provider != "corp" || !strings.Contains(err.Error(), `identity provider "corp"`) {
		t.Errorf("the error does not name the provider: %v", err)
	}
	noTokenIn(t, err.Error(), tok)
	return err
}

// noTokenIn fails if msg contains tok or any of its parts.
func noTokenIn(t *testing.T, msg, tok string) {
	t.Helper()
	if tok != "" && strings.Contains(msg, tok) {
		t.Fatalf("the error quotes the token: %s", msg)
	}
	for _, part := range strings.Split(tok, ".") {
		if len(part) >= 8 && strings.Contains(msg, part) {
			t.Fatalf("the error quotes part of the token (%s): %s", part, msg)
		}
	}
}

func verified(t *testing.T, p *oidc.Provider, tok string) *oidc.Identity {
	t.Helper()
	id, err := p.Verify(context.Background(), tok)
	if err != nil {
		t.Fatalf("Verify: %v", err)
	}
	return id
}

func TestValidTokens(t *testing.T) {
	for _, alg := range []jose.SignatureAlgorithm{jose.RS256, jose.ES256, jose.PS256, jose.EdDSA} {
		t.Run(string(alg), func(t *testing.T) {
			idp := newIdP(t)
			s := newSigner(t, alg)
			idp.publish(newSigner(t, jose.RS256), s) // another key first: the kid chooses
			p := idp.provider(t, nil)
			exp := time.Now().Add(time.Hour).Truncate(time.Second)
			id := verified(t, p, s.sign(t, idp.claims(map[string]any{"exp": exp.Unix(), "n": 42, "admin": true})))
			if id.Provider != "corp" || id.Issuer != idp.issuer || id.Subject != "user-1" || !id.Expiry.Equal(exp) {
				t.Errorf("identity %+v", id)
			}
			if id.Claims["email"] != "ana@example.org" || id.Claims["n"] != json.Number("42") {
				t.Errorf("claims %#v", id.Claims)
			}
			if !oidc.Match(id.Claims, map[string]string{"groups": "analysts", "n": "42", "admin": "true"}) {
				t.Errorf("the claims do not match: %#v", id.Claims)
			}
		})
	}
}

func TestTokenWithoutKeyID(t *testing.T) {
	idp := newIdP(t)
	s := newSigner(t, jose.ES256)
	idp.publish(newSigner(t, jose.ES256), s)
	p := idp.provider(t, nil)
	verified(t, p, s.sign(t, idp.claims(nil), ""))
	// Without a key ID, a key that verifies nothing is a bad signature.
	refused(t, p, newSigner(t, jose.ES256).sign(t, idp.claims(nil), ""), oidc.ReasonSignature)
}

func TestAudience(t *testing.T) {
	idp := newIdP(t)
	s := newSigner(t, jose.RS256)
	idp.publish(s)
	p := idp.provider(t, func(c *oidc.Config) { c.Audience = []string{"other", "zarrgw"} })
	verified(t, p, s.sign(t, idp.claims(map[string]any{"aud": []string{"x", "zarrgw"}})))
	verified(t, p, s.sign(t, idp.claims(map[string]any{"aud": "other"})))
	refused(t, p, s.sign(t, idp.claims(map[string]any{"aud": "someone-else"})), oidc.ReasonAudience)
	refused(t, p, s.sign(t, idp.claims(map[string]any{"aud": []string{"a", "b"}})), oidc.ReasonAudience)
	refused(t, p, s.sign(t, idp.claims(map[string]any{"aud": nil})), oidc.ReasonAudience)
}

func TestIssuer(t *testing.T) {
	idp := newIdP(t)
	s := newSigner(t, jose.RS256)
	idp.publish(s)
	p := idp.provider(t, nil)
	refused(t, p, s.sign(t, idp.claims(map[string]any{"iss": "https://evil.example.org"})), oidc.ReasonIssuer)
	refused(t, p, s.sign(t, idp.claims(map[string]any{"iss": idp.issuer + "/"})), oidc.ReasonIssuer)
	refused(t, p, s.sign(t, idp.claims(map[string]any{"iss": nil})), oidc.ReasonIssuer)
	verified(t, p, s.sign(t, idp.claims(nil)))
}

func TestTimes(t *testing.T) {
	idp := newIdP(t)
	s := newSigner(t, jose.RS256)
	idp.publish(s)
	p := idp.provider(t, nil) // the default leeway, 30s
	now := time.Now()
	refused(t, p, s.sign(t, idp.claims(map[string]any{"exp": now.Add(-10 * time.Minute).Unix()})), oidc.ReasonExpired)
	refused(t, p, s.sign(t, idp.claims(map[string]any{"nbf": now.Add(10 * time.Minute).Unix()})), oidc.ReasonNotYetValid)
	refused(t, p, s.sign(t, idp.claims(map[string]any{"iat": now.Add(10 * time.Minute).Unix()})), oidc.ReasonNotYetValid)
	refused(t, p, s.sign(t, idp.claims(map[string]any{"exp": nil})), oidc.ReasonMalformed)
	refused(t, p, s.sign(t, idp.claims(map[string]any{"exp": "tomorrow"})), oidc.ReasonMalformed)
	refused(t, p, s.sign(t, idp.claims(map[string]any{"nbf": "now"})), oidc.ReasonMalformed)
	// Within the leeway: the margins (minutes) dwarf any pause of the
	// test itself.
	lenient := idp.provider(t, func(c *oidc.Config) { c.Leeway = 5 * time.Minute })
	verified(t, lenient, s.sign(t, idp.claims(map[string]any{"exp": now.Add(-time.Minute).Unix()})))
	verified(t, lenient, s.sign(t, idp.claims(map[string]any{"nbf": now.Add(time.Minute).Unix(), "iat": now.Add(time.Minute).Unix()})))
	verified(t, lenient, s.sign(t, idp.claims(map[string]any{"exp": float64(now.Add(time.Hour).Unix()) + 0.5})))
	refused(t, lenient, s.sign(t, idp.claims(map[string]any{"exp": now.Add(-10 * time.Minute).Unix()})), oidc.ReasonExpired)
}

func TestMalformed(t *testing.T) {
	idp := newIdP(t)
	s := newSigner(t, jose.RS256)
	idp.publish(s)
	p := idp.provider(t, nil)
	good := s.sign(t, idp.claims(nil))
	parts := strings.Split(good, ".")
	for _, tok := range []string{
		"", "opaque-static-token", "a.b", "a.b.c.d.e",
		parts[0] + ".!!!." + parts[2],
		parts[0] + "." + parts[1] + ".@@",
		b64(`{"typ":"JWT"}`) + "." + parts[1] + "." + parts[2],
		b64(`["RS256"]`) + "." + parts[1] + "." + parts[2],
		parts[0] + "." + parts[1] + ".AAAA", // a signature part that is not RSA's
	} {
		err := refusedAny(t, p, tok)
		if r := oidc.Reason(err); r != oidc.ReasonMalformed && r != oidc.ReasonSignature {
			t.Errorf("%q: reason %q, want malformed (or signature): %v", tok, r, err)
		}
	}
	refused(t, p, s.sign(t, idp.claims(map[string]any{"sub": nil})), oidc.ReasonMalformed)
	// Claims that are not an object: go-oidc refuses them after the
	// signature verified.
	sig, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.RS256, Key: jose.JSONWebKey{Key: s.key, KeyID: s.kid}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	jws, err := sig.Sign([]byte(`[1,2,3]`))
	if err != nil {
		t.Fatal(err)
	}
	tok, _ := jws.CompactSerialize()
	refused(t, p, tok, oidc.ReasonMalformed)
}

func refusedAny(t *testing.T, p *oidc.Provider, tok string) error {
	t.Helper()
	_, err := p.Verify(context.Background(), tok)
	if err == nil {
		t.Fatalf("%q accepted", tok)
	}
	noTokenIn(t, err.Error(), tok)
	return err
}

func b64(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }

func TestAlgorithmNone(t *testing.T) {
	idp := newIdP(t)
	s := newSigner(t, jose.RS256)
	idp.publish(s)
	p := idp.provider(t, nil)
	payload, _ := json.Marshal(idp.claims(nil))
	for _, header := range []string{`{"alg":"none","typ":"JWT"}`, `{"alg":"none","kid":"` + s.kid + `"}`} {
		tok := b64(header) + "." + base64.RawURLEncoding.EncodeToString(payload) + "."
		if !oidc.LooksLikeJWT(tok) {
			t.Errorf("an unsigned JWT does not look like one")
		}
		refused(t, p, tok, oidc.ReasonAlgorithm)
	}
	if d := idp.discoveries.Load() + idp.jwksFetches.Load(); d != 0 {
		t.Errorf("an unsigned token made %d requests to the provider", d)
	}
}

// The classic key confusion: HS256 with the provider's RSA public key as
// the shared secret, which a verifier that let the token choose the
// algorithm would accept.
func TestKeyConfusion(t *testing.T) {
	idp := newIdP(t)
	s := newSigner(t, jose.RS256)
	idp.publish(s)
	p := idp.provider(t, nil)
	verified(t, p, s.sign(t, idp.claims(nil))) // the keys are cached
	der, err := x509.MarshalPKIXPublicKey(s.key.Public())
	if err != nil {
		t.Fatal(err)
	}
	for _, secret := range [][]byte{der, pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})} {
		for _, alg := range []jose.SignatureAlgorithm{jose.HS256, jose.HS512} {
			sig, err := jose.NewSigner(jose.SigningKey{Algorithm: alg, Key: jose.JSONWebKey{Key: secret, KeyID: s.kid}}, nil)
			if err != nil {
				t.Fatal(err)
			}
			refused(t, p, compact(t, sig, idp.claims(nil)), oidc.ReasonAlgorithm)
		}
	}
	// Nor can the configuration allow them.
	for _, alg := range []string{"HS256", "HS384", "HS512", "none"} {
		_, err := oidc.New(oidc.Config{Name: "corp", Issuer: idp.issuer, Audience: []string{"zarrgw"}, Algorithms: []string{"RS256", alg}})
		if err == nil || !strings.Contains(err.Error(), "refused") {
			t.Errorf("Algorithms %s: %v", alg, err)
		}
	}
}

func TestAlgorithmNotAllowed(t *testing.T) {
	idp := newIdP(t)
	rs, es := newSigner(t, jose.RS256), newSigner(t, jose.ES256)
	idp.publish(rs, es)
	p := idp.provider(t, func(c *oidc.Config) { c.Algorithms = []string{"ES256"} })
	verified(t, p, es.sign(t, idp.claims(nil)))
	refused(t, p, rs.sign(t, idp.claims(nil)), oidc.ReasonAlgorithm)
}

func TestUnknownKey(t *testing.T) {
	idp := newIdP(t)
	s := newSigner(t, jose.RS256)
	idp.publish(s)
	p := idp.provider(t, nil)
	stranger := newSigner(t, jose.RS256)
	refused(t, p, stranger.sign(t, idp.claims(nil)), oidc.ReasonUnknownKey)
	// The stranger's signature under the provider's key ID.
	refused(t, p, stranger.sign(t, idp.claims(nil), s.kid), oidc.ReasonSignature)
	// A published key used with another algorithm than its own.
	ps := &signer{alg: jose.PS256, key: s.key, kid: s.kid}
	refused(t, p, ps.sign(t, idp.claims(nil)), oidc.ReasonSignature)
}

// eventually calls f until it succeeds, for at most a minute: a wait for
// the key set's next allowed fetch, which follows progress rather than
// the clock.
func eventually(t *testing.T, what string, f func() error) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		err := f()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: still failing after a minute: %v", what, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestRotation(t *testing.T) {
	idp := newIdP(t)
	old := newSigner(t, jose.RS256)
	idp.publish(old)
	p := idp.provider(t, func(c *oidc.Config) { c.MinRefetch = 50 * time.Millisecond })
	oldTok := old.sign(t, idp.claims(nil))
	verified(t, p, oldTok)
	if n := idp.jwksFetches.Load(); n != 1 {
		t.Fatalf("%d key fetches for the first token, want 1", n)
	}
	verified(t, p, oldTok) // from the cache
	if n := idp.jwksFetches.Load(); n != 1 {
		t.Fatalf("%d key fetches after a cached key verified, want 1", n)
	}

	rotated := newSigner(t, jose.ES256)
	idp.publish(rotated)
	newTok := rotated.sign(t, idp.claims(nil))
	eventually(t, "a token of the rotated key", func() error {
		_, err := p.Verify(context.Background(), newTok)
		if err != nil && oidc.Reason(err) != oidc.ReasonUnknownKey {
			t.Fatalf("the rotated key's token: %v", err)
		}
		return err
	})
	if n := idp.jwksFetches.Load(); n < 2 {
		t.Errorf("%d key fetches, want a second one after the rotation", n)
	}
	if n := idp.discoveries.Load(); n != 1 {
		t.Errorf("%d discoveries, want 1: a working jwks_uri is kept", n)
	}
	// The old key is gone from the provider's set, and from the cache.
	refused(t, p, oldTok, oidc.ReasonUnknownKey)
}

// Tokens with made-up key IDs, many at once and then one after another,
// cost one fetch of the keys within MinRefetch.
func TestRefetchBound(t *testing.T) {
	idp := newIdP(t)
	s := newSigner(t, jose.RS256)
	idp.publish(s)
	p := idp.provider(t, func(c *oidc.Config) { c.MinRefetch = time.Hour })
	stranger := newSigner(t, jose.RS256)
	claims := idp.claims(nil)
	toks := make([]string, 100)
	for i := range toks {
		toks[i] = stranger.sign(t, claims, randomID())
	}
	var wg sync.WaitGroup
	errs := make([]error, len(toks))
	for i, tok := range toks {
		wg.Go(func() { _, errs[i] = p.Verify(context.Background(), tok) })
	}
	wg.Wait()
	for i, err := range errs {
		if oidc.Reason(err) != oidc.ReasonUnknownKey {
			t.Fatalf("token %d: %v, want unknown_key", i, err)
		}
		noTokenIn(t, err.Error(), toks[i])
	}
	for _, tok := range toks {
		refused(t, p, tok, oidc.ReasonUnknownKey)
	}
	if n := idp.jwksFetches.Load(); n != 1 {
		t.Errorf("200 tokens with unknown key IDs made %d key fetches, want 1", n)
	}
	if n := idp.discoveries.Load(); n != 1 {
		t.Errorf("%d discoveries, want 1", n)
	}
	// The provider's own tokens still verify, from the cache.
	verified(t, p, s.sign(t, claims))
}

func TestDiscoveryFailsThenRecovers(t *testing.T) {
	idp := newIdP(t)
	s := newSigner(t, jose.RS256)
	idp.publish(s)
	idp.set(func(p *idpServer) { p.discoveryStatus = http.StatusServiceUnavailable })
	p := idp.provider(t, func(c *oidc.Config) { c.MinRefetch = 50 * time.Millisecond })
	if n := idp.discoveries.Load() + idp.jwksFetches.Load(); n != 0 {
		t.Fatalf("New made %d requests, want none", n)
	}
	tok := s.sign(t, idp.claims(nil))
	err := refused(t, p, tok, oidc.ReasonProviderUnavailable)
	if !strings.Contains(err.Error(), "503") || !strings.Contains(err.Error(), "openid-configuration") {
		t.Errorf("the error does not say what failed: %v", err)
	}
	idp.set(func(p *idpServer) { p.discoveryStatus = 0 })
	eventually(t, "a token once discovery answers", func() error {
		_, err := p.Verify(context.Background(), tok)
		if err != nil && oidc.Reason(err) != oidc.ReasonProviderUnavailable {
			t.Fatalf("once discovery answers: %v", err)
		}
		return err
	})
}

// Keys already cached keep verifying while the provider is down; a key
// the cache lacks then cannot be checked.
func TestOutageKeepsCachedKeys(t *testing.T) {
	idp := newIdP(t)
	s := newSigner(t, jose.RS256)
	idp.publish(s)
	p := idp.provider(t, func(c *oidc.Config) { c.MinRefetch = time.Millisecond })
	tok := s.sign(t, idp.claims(nil))
	verified(t, p, tok)
	idp.set(func(p *idpServer) { p.jwksStatus = http.StatusInternalServerError })
	verified(t, p, tok)
	// MinRefetch is a millisecond: once one has passed (waited for by
	// the first fetch failing), every unknown key makes a fetch, which
	// fails.
	before := idp.jwksFetches.Load()
	eventually(t, "a fetch of the keys while the provider fails", func() error {
		_, err := p.Verify(context.Background(), newSigner(t, jose.ES256).sign(t, idp.claims(nil)))
		if idp.jwksFetches.Load() == before {
			return errors.New("no fetch yet")
		}
		if oidc.Reason(err) != oidc.ReasonProviderUnavailable || !strings.Contains(err.Error(), "500") {
			t.Fatalf("an unknown key while the keys cannot be fetched: %v", err)
		}
		return nil
	})
	verified(t, p, tok)
}

func TestDiscoveryNamesAnotherIssuer(t *testing.T) {
	idp := newIdP(t)
	s := newSigner(t, jose.RS256)
	idp.publish(s)
	idp.set(func(p *idpServer) { p.discoveryIssuer = "https://elsewhere.example.org" })
	p := idp.provider(t, nil)
	tok := s.sign(t, idp.claims(map[string]any{"iss": "https://elsewhere.example.org"}))
	err := refused(t, p, tok, oidc.ReasonProviderUnavailable)
	if !strings.Contains(err.Error(), "elsewhere.example.org") {
		t.Errorf("the error does not name the issuer the document names: %v", err)
	}
	if n := idp.jwksFetches.Load(); n != 0 {
		t.Errorf("the keys of a document of another issuer were fetched (%d)", n)
	}
}

// A caller whose context ends stops waiting for a fetch that hangs; the
// fetch itself goes on for the others.
func TestVerifyContext(t *testing.T) {
	idp := newIdP(t)
	s := newSigner(t, jose.RS256)
	idp.publish(s)
	release := make(chan struct{})
	idp.set(func(p *idpServer) { p.block = release })
	p := idp.provider(t, nil)
	tok := s.sign(t, idp.claims(nil))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := p.Verify(ctx, tok)
		done <- err
	}()
	eventually(t, "the discovery request", func() error {
		if idp.discoveries.Load() == 0 {
			return errors.New("not yet")
		}
		return nil
	})
	cancel()
	err := <-done
	if oidc.Reason(err) != oidc.ReasonProviderUnavailable || !errors.Is(err, context.Canceled) {
		t.Fatalf("Verify with its context canceled: %v", err)
	}
	noTokenIn(t, err.Error(), tok)
	second := make(chan error, 1)
	go func() {
		_, err := p.Verify(context.Background(), tok)
		second <- err
	}()
	idp.set(func(p *idpServer) { p.block = nil })
	close(release)
	if err := <-second; err != nil {
		t.Fatalf("a caller waiting for the same fetch: %v", err)
	}
	if n := idp.discoveries.Load(); n != 1 {
		t.Errorf("%d discoveries, want the one both callers shared", n)
	}
}

func TestConfig(t *testing.T) {
	ok := oidc.Config{Name: "corp", Issuer: "https://idp.example.org/realms/x", Audience: []string{"zarrgw"}}
	if _, err := oidc.New(ok); err != nil {
		t.Fatalf("a good configuration: %v", err)
	}
	for name, mod := range map[string]func(*oidc.Config){
		"no name":          func(c *oidc.Config) { c.Name = "" },
		"no issuer":        func(c *oidc.Config) { c.Issuer = "" },
		"issuer not URL":   func(c *oidc.Config) { c.Issuer = "idp.example.org" },
		"issuer ftp":       func(c *oidc.Config) { c.Issuer = "ftp://idp.example.org" },
		"issuer query":     func(c *oidc.Config) { c.Issuer = "https://idp.example.org/?x=1" },
		"no audience":      func(c *oidc.Config) { c.Audience = nil },
		"empty audience":   func(c *oidc.Config) { c.Audience = []string{""} },
		"unknown alg":      func(c *oidc.Config) { c.Algorithms = []string{"RS1"} },
		"lowercase alg":    func(c *oidc.Config) { c.Algorithms = []string{"rs256"} },
		"negative leeway":  func(c *oidc.Config) { c.Leeway = -time.Second },
		"negative refetch": func(c *oidc.Config) { c.MinRefetch = -time.Second },
	} {
		cfg := ok
		mod(&cfg)
		if _, err := oidc.New(cfg); err == nil {
			t.Errorf("%s: accepted", name)
		} else if cfg.Name != "" && !strings.Contains(err.Error(), `"corp"`) {
			t.Errorf("%s: the error does not name the provider: %v", name, err)
		}
	}
}

func TestReason(t *testing.T) {
	if r := oidc.Reason(nil); r != "" {
		t.Errorf("Reason(nil) = %q", r)
	}
	if r := oidc.Reason(errors.New("x")); r != "" {
		t.Errorf("Reason of another error = %q", r)
	}
}

func TestLooksLikeJWT(t *testing.T) {
	idp := newIdP(t)
	tok := newSigner(t, jose.ES256).sign(t, idp.claims(nil))
	if !oidc.LooksLikeJWT(tok) {
		t.Errorf("a signed JWT does not look like one")
	}
	payload := b64(`{"sub":"x"}`)
	for _, tc := range []struct {
		tok  string
		want bool
	}{
		{b64(`{"alg":"RS256"}`) + "." + payload + ".c2ln", true},
		{b64(`{"alg":"none"}`) + "." + payload + ".", true},
		{"", false},
		{"zgw_3f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c", false},
		{"a.b.c", false},
		{b64(`{"typ":"JWT"}`) + "." + payload + ".c2ln", false},
		{b64(`{"alg":""}`) + "." + payload + ".c2ln", false},
		{b64(`{"alg":1}`) + "." + payload + ".c2ln", false},
		{b64(`"RS256"`) + "." + payload + ".c2ln", false},
		{b64(`{"alg":"RS256"}`) + "=." + payload + ".c2ln", false},
		{b64(`{"alg":"RS256"}`) + "." + payload + ".c2ln.x", false},
		{b64(`{"alg":"RS256"}`) + ".." + "c2ln", false},
		{b64(`{"alg":"RS256"}`) + "." + payload + ".c2/n", false},
		{b64(`{"alg":"RS256"}`) + ".pay load.c2ln", false},
	} {
		if got := oidc.LooksLikeJWT(tc.tok); got != tc.want {
			t.Errorf("LooksLikeJWT(%q) = %v, want %v", tc.tok, got, tc.want)
		}
	}
}

// An https issuer's keys come over https: a discovery document naming
// plain-http keys, or keys redirected to plain http, are refused (the
// provider is unavailable until that is fixed), never fetched.
func TestKeysNeverOverPlainHTTP(t *testing.T) {
	s := newSigner(t, jose.RS256)
	var plainFetches atomic.Int64
	plain := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		plainFetches.Add(1)
		writeJSON(w, jose.JSONWebKeySet{Keys: []jose.JSONWebKey{s.public()}})
	}))
	t.Cleanup(plain.Close)
	for _, redirect := range []bool{false, true} {
		var tls *httptest.Server
		tls = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			switch r.URL.Path {
			case "/.well-known/openid-configuration":
				jwks := plain.URL + "/keys"
				if redirect {
					jwks = tls.URL + "/keys"
				}
				writeJSON(w, map[string]any{"issuer": tls.URL, "jwks_uri": jwks})
			case "/keys":
				http.Redirect(w, r, plain.URL+"/keys", http.StatusFound)
			}
		}))
		p, err := oidc.New(oidc.Config{Name: "corp", Issuer: tls.URL, Audience: []string{"zarrgw"}, HTTPClient: tls.Client()})
		if err != nil {
			t.Fatal(err)
		}
		tok := s.sign(t, map[string]any{"iss": tls.URL, "aud": "zarrgw", "sub": "a", "exp": time.Now().Add(time.Hour).Unix()})
		if _, err := p.Verify(context.Background(), tok); oidc.Reason(err) != oidc.ReasonProviderUnavailable {
			t.Errorf("redirect %v: %v, want provider_unavailable", redirect, err)
		}
		tls.Close()
	}
	if n := plainFetches.Load(); n != 0 {
		t.Errorf("keys fetched over plain http %d times", n)
	}
}

// What verifying a token costs, by algorithm, its keys cached: what a
// request with a JWT the gateway has not seen yet pays (the gateway
// then knows the token by its SHA-256 until it expires).
//
//	go test -run '^$' -bench Verify -benchmem ./host/serve/identity/oidc
func BenchmarkVerify(b *testing.B) {
	for _, alg := range []jose.SignatureAlgorithm{jose.RS256, jose.ES256, jose.EdDSA} {
		b.Run(string(alg), func(b *testing.B) {
			idp := newIdP(b)
			s := newSigner(b, alg)
			idp.publish(s)
			p := idp.provider(b, nil)
			tok := s.sign(b, idp.claims(nil))
			if _, err := p.Verify(context.Background(), tok); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				if _, err := p.Verify(context.Background(), tok); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
