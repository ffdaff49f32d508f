package oidc

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	jose "github.com/go-jose/go-jose/v4"
)

// keySet is the provider's keys as go-oidc's verifier asks for them
// (gooidc.KeySet), found through discovery and fetched again under a
// bound.
//
// go-oidc's RemoteKeySet is not used because its refetches cannot be
// bounded: it shares a fetch among concurrent callers, but fetches again
// for every token whose kid it has not cached, so tokens with made-up key
// IDs sent one after another each cost a request to the provider. Its
// cache is not reachable from outside to decide first whether to let it
// fetch, and it takes its HTTP client from a context given once. Here a
// fetch happens at most once per minRefetch, and the first one is also
// where discovery happens, so that New contacts nothing.
type keySet struct {
	name, issuer string
	client       *http.Client
	algs         []string
	minRefetch   time.Duration

	mu       sync.Mutex
	keys     []jose.JSONWebKey // replaced whole by a fetch, never changed in place
	jwksURL  string            // from discovery; "" until it succeeds, and again after a failed fetch
	fetched  time.Time         // when the last fetch ended; zero before the first
	lastErr  error             // that fetch's error
	inflight *fetch            // the fetch under way, which callers share
	// generation counts the fetches that replaced the keys, so that a
	// caller remembering tokens verified under older keys can tell.
	generation uint64
}

// fetch is one fetch of the keys, which every caller that asks while it
// runs waits for.
type fetch struct {
	done chan struct{}
	keys []jose.JSONWebKey
	err  error
}

// resultKey is the context key of a *verifyResult: go-oidc passes the
// key set's error on as text only, and the Provider needs it typed.
type resultKey struct{}

// verifyResult is what VerifySignature saw of one token.
type verifyResult struct {
	payload []byte // the verified payload
	err     error  // an *Error
}

const (
	// fetchTimeout bounds one discovery and key fetch, whoever waits
	// for it, should the HTTP client have no timeout.
	fetchTimeout = 30 * time.Second
	// maxDocument bounds a discovery document or a key set.
	maxDocument = 1 << 20
	// maxKeyAge is how long keys are used without asking the provider
	// again.
	maxKeyAge = time.Hour
)

// VerifySignature verifies the signature of jwt with the provider's keys
// and returns its payload; go-oidc has already checked its algorithm.
func (k *keySet) VerifySignature(ctx context.Context, jwt string) ([]byte, error) {
	payload, err := k.verify(ctx, jwt)
	res, _ := ctx.Value(resultKey{}).(*verifyResult)
	if err != nil {
		if res != nil {
			res.err = err
		}
		return nil, err
	}
	if res != nil {
		res.payload = payload
	}
	return payload, nil
}

func (k *keySet) verify(ctx context.Context, jwt string) ([]byte, *Error) {
	jws, err := jose.ParseSigned(jwt, signatureAlgorithms(k.algs))
	if err != nil || len(jws.Signatures) != 1 {
		return nil, k.fail(ReasonMalformed, "the token is not a JWS in compact form with one signature", nil)
	}
	header := jws.Signatures[0].Header
	kid, alg := header.KeyID, header.Algorithm
	k.mu.Lock()
	cached, stale := k.keys, !k.fetched.IsZero() && time.Since(k.fetched) > maxKeyAge
	k.mu.Unlock()
	if stale {
		// a key the provider withdrew must not verify forever: once an
		// hour the keys are fetched again (a failed fetch keeps them)
		if keys, err := k.refresh(ctx); err == nil {
			cached = keys
		}
	}
	payload, known := verifyWith(jws, cached, kid, alg)
	if payload != nil {
		return payload, nil
	}
	if kid != "" && known {
		// The key is cached and does not verify: a new fetch would not
		// change that (a provider gives a new key a new ID).
		return nil, k.fail(ReasonSignature, "the token's signature does not verify with the provider's key of its key ID", nil)
	}
	keys, err := k.refresh(ctx)
	if err != nil {
		return nil, k.fail(ReasonProviderUnavailable, "cannot fetch the provider's keys", err)
	}
	payload, known = verifyWith(jws, keys, kid, alg)
	switch {
	case payload != nil:
		return payload, nil
	case kid == "":
		return nil, k.fail(ReasonSignature, "the token has no key ID, and its signature verifies with none of the provider's keys", nil)
	case known:
		return nil, k.fail(ReasonSignature, "the token's signature does not verify with the provider's key of its key ID", nil)
	default:
		return nil, k.fail(ReasonUnknownKey, fmt.Sprintf("the token is signed with a key the provider does not publish (its keys are fetched again at most every %v)", k.minRefetch), nil)
	}
}

// verifyWith tries the keys of ID kid (all keys when kid is ""), skipping
// those meant for another algorithm; known reports whether any key was
// tried.
func verifyWith(jws *jose.JSONWebSignature, keys []jose.JSONWebKey, kid, alg string) (payload []byte, known bool) {
	for i := range keys {
		key := &keys[i]
		if kid != "" && key.KeyID != kid {
			continue
		}
		known = true
		if key.Algorithm != "" && key.Algorithm != alg {
			continue
		}
		if p, err := jws.Verify(key); err == nil {
			return p, true
		}
	}
	return nil, known
}

// refresh returns the keys after fetching them again, unless the last
// fetch ended less than minRefetch ago: then it returns what that fetch
// left (the cached keys, or its error). A fetch under way is waited for,
// not repeated.
func (k *keySet) refresh(ctx context.Context) ([]jose.JSONWebKey, error) {
	k.mu.Lock()
	f := k.inflight
	if f == nil {
		if !k.fetched.IsZero() && time.Since(k.fetched) < k.minRefetch {
			keys, err := k.keys, k.lastErr
			k.mu.Unlock()
			return keys, err
		}
		f = &fetch{done: make(chan struct{})}
		k.inflight = f
		// The fetch runs on its own, not under the context of the
		// caller that started it: the callers waiting for it may
		// outlast that one.
		go k.run(f, k.jwksURL)
	}
	k.mu.Unlock()
	select {
	case <-f.done:
		return f.keys, f.err
	case <-ctx.Done():
		return nil, fmt.Errorf("waiting for the provider's keys: %w", ctx.Err())
	}
}

// run does fetch f: discovery first if jwksURL is not known yet, then the
// keys.
func (k *keySet) run(f *fetch, jwksURL string) {
	ctx, cancel := context.WithTimeout(context.Background(), fetchTimeout)
	defer cancel()
	var keys []jose.JSONWebKey
	var err error
	if jwksURL == "" {
		jwksURL, err = k.discover(ctx)
	}
	if err == nil {
		keys, err = k.fetchKeys(ctx, jwksURL)
	}
	k.mu.Lock()
	k.fetched, k.lastErr = time.Now(), err
	if err == nil {
		k.keys, k.jwksURL = keys, jwksURL
		k.generation++
	} else {
		// The keys may have moved: the next fetch discovers them
		// again. Keys already cached stay, and keep verifying.
		k.jwksURL = ""
	}
	f.keys, f.err = k.keys, err
	k.inflight = nil
	k.mu.Unlock()
	close(f.done)
}

// discover reads the discovery document and returns its jwks_uri.
func (k *keySet) discover(ctx context.Context) (string, error) {
	where := strings.TrimSuffix(k.issuer, "/") + "/.well-known/openid-configuration"
	var doc struct {
		Issuer  string `json:"issuer"`
		JWKSURI string `json:"jwks_uri"`
	}
	if err := k.getJSON(ctx, where, &doc); err != nil {
		return "", fmt.Errorf("discovery: %w", err)
	}
	if doc.Issuer != k.issuer {
		// OpenID Connect Discovery 1.0 §4.3: the document must name the
		// issuer it was asked for, or tokens could be accepted from
		// another one.
		return "", fmt.Errorf("discovery: the document at %s names issuer %q, not %q", where, doc.Issuer, k.issuer)
	}
	u, err := url.Parse(doc.JWKSURI)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return "", fmt.Errorf("discovery: the document at %s has no http or https jwks_uri", where)
	}
	// keys decide who is who: an https issuer's keys come over https
	if u.Scheme == "http" && strings.HasPrefix(k.issuer, "https:") {
		return "", fmt.Errorf("discovery: the document at %s names keys over plain http (%s) for an https issuer", where, doc.JWKSURI)
	}
	return doc.JWKSURI, nil
}

// fetchKeys fetches the key set at jwksURL and keeps its public signing
// keys. Keys of a kind go-jose does not know are skipped, as RFC 7517 §5
// asks, and so are keys for encryption and symmetric keys (a shared
// secret published in a key set is no proof of anything).
func (k *keySet) fetchKeys(ctx context.Context, jwksURL string) ([]jose.JSONWebKey, error) {
	var set struct {
		Keys []json.RawMessage `json:"keys"`
	}
	if err := k.getJSON(ctx, jwksURL, &set); err != nil {
		return nil, fmt.Errorf("keys: %w", err)
	}
	var keys []jose.JSONWebKey
	for _, raw := range set.Keys {
		var key jose.JSONWebKey
		if err := json.Unmarshal(raw, &key); err != nil {
			continue
		}
		if key.Use != "" && key.Use != "sig" {
			continue
		}
		// A private key published by mistake still verifies as its
		// public half; a symmetric key has none, and is dropped.
		if key = key.Public(); !key.Valid() {
			continue
		}
		keys = append(keys, key)
	}
	if len(keys) == 0 {
		return nil, fmt.Errorf("keys: the key set at %s has no public signing key", jwksURL)
	}
	return keys, nil
}

// getJSON GETs a JSON document of at most maxDocument bytes.
func (k *keySet) getJSON(ctx context.Context, where string, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, where, nil)
	if err != nil {
		return fmt.Errorf("GET %s: %w", where, err)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := k.client.Do(req)
	if err != nil {
		return err // the client's errors name the method and URL
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", where, resp.Status)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxDocument+1))
	if err != nil {
		return fmt.Errorf("GET %s: reading the body: %w", where, err)
	}
	if len(body) > maxDocument {
		return fmt.Errorf("GET %s: the document is larger than %d bytes", where, maxDocument)
	}
	if err := json.Unmarshal(body, v); err != nil {
		return fmt.Errorf("GET %s: not the JSON object expected: %w", where, err)
	}
	return nil
}

// fail is an error of this key set's provider.
func (k *keySet) fail(reason, detail string, err error) *Error {
	return &Error{Provider: k.name, Reason: reason, detail: detail, err: err}
}

// signatureAlgorithms converts an allow-list for go-jose.
func signatureAlgorithms(algs []string) []jose.SignatureAlgorithm {
	out := make([]jose.SignatureAlgorithm, len(algs))
	for i, a := range algs {
		out[i] = jose.SignatureAlgorithm(a)
	}
	return out
}
