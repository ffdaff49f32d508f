package identity

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"

	"github.com/zarrgw/zarrgw/tests/support/servers"
)

// A token of a user in group analysts reads the dataset the group may
// read through the key API, the array API and the pages (header and the
// pages' cookie); a user of another group is refused; only ingest writes.
func TestJWTReadsWhereTokensRead(t *testing.T) {
	w := newWorld(t)
	d := w.gw.URL + "/d/climate"
	ana, vic, ing := w.token(t, w.corp, analyst), w.token(t, w.corp, visitor), w.token(t, w.corp, ingester)

	if code, body := w.bearer(t, d+"/t/zarr.json", ana); code != 200 || !strings.Contains(body, `"uint8"`) {
		t.Fatalf("key API with the analyst's token: %d %s", code, body)
	}
	code, body := w.bearer(t, d+"/t?slice=0:4&format=json", ana)
	if code != 200 || sliceData(t, body) != "[3 1 4 1]" {
		t.Fatalf("array API with the analyst's token: %d %q", code, body)
	}
	if code, body := w.bearer(t, w.gw.URL+"/ui/d/climate/", ana); code != 200 || !strings.Contains(body, "ana@example.org") && !strings.Contains(body, "analysts") {
		t.Fatalf("pages with the analyst's token: %d (the page should name who reads)\n%.400s", code, body)
	}
	if code, _, _ := w.call(t, "GET", w.gw.URL+"/ui/d/climate/t", "", "Cookie", "zarrgw_token="+ana); code != 200 {
		t.Fatalf("pages with the analyst's token in the pages' cookie: %d", code)
	}
	if code, _ := w.bearer(t, d+"/", ana); code != 200 {
		t.Fatalf("index page with the analyst's token: %d", code)
	}
	if code, body := w.bearer(t, w.gw.URL+"/metrics", ana); code != 200 || !strings.Contains(body, "zarrgw_http_requests_total") {
		t.Fatalf("/metrics, open to the analysts, with the analyst's token: %d", code)
	}
	if code, _ := w.bearer(t, w.gw.URL+"/metrics", vic); code != http.StatusForbidden {
		t.Errorf("/metrics with a visitor's token: %d, want 403", code)
	}

	for _, u := range []string{d + "/t/zarr.json", d + "/t?slice=0:4&format=json"} {
		if code, body := w.bearer(t, u, vic); code != http.StatusForbidden {
			t.Errorf("%s with a visitor's token: %d %s, want 403", u, code, body)
		}
	}
	if code, _ := w.bearer(t, w.gw.URL+"/ui/d/climate/", vic); code == 200 {
		t.Errorf("pages with a visitor's token: 200")
	}
	if code, _ := w.bearer(t, d+"/t/zarr.json", ""); code != http.StatusUnauthorized {
		t.Errorf("an empty bearer token: %d, want 401", code)
	}
	if code, _, _ := w.call(t, "GET", d+"/t/zarr.json", ""); code != http.StatusUnauthorized {
		t.Errorf("no token on a private dataset: %d, want 401", code)
	}

	if code, body, _ := w.call(t, "PUT", d+"/t/c/0", "\x09\x09\x09\x09", "Authorization", "Bearer "+ana); code != http.StatusForbidden {
		t.Errorf("an analyst's write: %d %s, want 403", code, body)
	}
	if code, body, _ := w.call(t, "PUT", d+"/t/c/0", "\x02\x07\x01\x08", "Authorization", "Bearer "+ing); code/100 != 2 {
		t.Fatalf("an ingester's write: %d %s", code, body)
	}
	if code, body := w.bearer(t, d+"/t?slice=0:4&format=json", ana); code != 200 || sliceData(t, body) != "[2 7 1 8]" {
		t.Fatalf("the write read back: %d %q", code, body)
	}
	if !strings.Contains(w.gw.Log.String(), `"auth":"jwt"`) || !strings.Contains(w.gw.Log.String(), `"principal":"analysts"`) {
		t.Errorf("the access log does not name the principal and how it authenticated:\n%.2000s", w.gw.Log)
	}
}

// Tokens that must not pass are 401, each counted by its reason: of
// another audience, another issuer, alg none, HS256 keyed with the
// provider's public key, signed by an unknown key, expired.
func TestForgedAndForeignTokens(t *testing.T) {
	w := newWorld(t)
	stranger := servers.StartDex(t, servers.DexOptions{Users: users})
	u := w.gw.URL + "/d/climate/t/zarr.json"
	good := w.token(t, w.corp, analyst)
	if code, _ := w.bearer(t, u, good); code != 200 {
		t.Fatalf("a good token: %d", code)
	}
	otherAud := w.corp.TokenFor(t, "another-app", analyst.Email, analyst.Password)
	w.rememberJWT(otherAud)
	otherIss := w.token(t, stranger, analyst)
	none := forge(t, good, map[string]any{"alg": "none", "typ": "JWT"}, func([]byte) []byte { return nil })
	hs := forge(t, good, map[string]any{"alg": "HS256", "typ": "JWT", "kid": kidOf(t, good)}, func(in []byte) []byte {
		m := hmac.New(sha256.New, publicKeyPEM(t, w.corp.Issuer+"/keys"))
		m.Write(in)
		return m.Sum(nil)
	})
	unknown := signedByUnknownKey(t, good)
	brief := w.token(t, w.brief, analyst)
	cases := []struct{ name, token, reason string }{
		{"another audience", otherAud, "audience"},
		{"another issuer", otherIss, "issuer"},
		{"alg none", none, "algorithm"},
		{"HS256 keyed with the public key", hs, "algorithm"},
		{"an unknown key", unknown, "unknown_key"},
	}
	for _, c := range cases {
		w.rememberJWT(c.token)
		code, body, h := w.call(t, "GET", u, "", "Authorization", "Bearer "+c.token)
		if code != http.StatusUnauthorized || !strings.Contains(h.Get("WWW-Authenticate"), "invalid_token") {
			t.Errorf("%s: %d %q (%s), want 401 invalid_token", c.name, code, h.Get("WWW-Authenticate"), body)
		}
		// the array API and the pages refuse it too
		if code, _ := w.bearer(t, w.gw.URL+"/d/climate/t?slice=0:4&format=json", c.token); code != http.StatusUnauthorized {
			t.Errorf("%s on the array API: %d, want 401", c.name, code)
		}
		if code, _ := w.bearer(t, w.gw.URL+"/ui/d/climate/", c.token); code != http.StatusUnauthorized {
			t.Errorf("%s on the pages: %d, want 401", c.name, code)
		}
	}
	if code, _ := w.bearer(t, u, brief); code != 200 {
		t.Fatalf("a fresh token of the brief provider: %d", code)
	}
	waitFor(t, "the brief provider's token expires (20s, leeway 1s)", 2*time.Minute, func() bool {
		code, _ := w.bearer(t, u, brief)
		return code == http.StatusUnauthorized
	})
	failures := w.authFailures(t)
	for _, reason := range []string{"audience", "issuer", "algorithm", "unknown_key", "expired"} {
		if failures[reason] < 1 {
			t.Errorf("zarrgw_auth_failures_total{reason=%q} = %d; all: %v", reason, failures[reason], failures)
		}
	}
}

// After the provider rotates its signing keys (Dex restarted with memory
// storage makes new ones), new tokens are accepted by the same gateway,
// and tokens of the old keys are refused.
func TestProviderRotatesKeys(t *testing.T) {
	w := newWorld(t)
	u := w.gw.URL + "/d/climate/t/zarr.json"
	old := w.token(t, w.corp, analyst)
	if code, _ := w.bearer(t, u, old); code != 200 {
		t.Fatalf("before the rotation: %d", code)
	}
	oldKid := kidOf(t, old)
	w.corp.Restart(t)
	fresh := w.token(t, w.corp, analyst)
	if kidOf(t, fresh) == oldKid {
		t.Fatalf("the provider kept its key %q across the restart: nothing rotated", oldKid)
	}
	// the gateway refetches keys for an unknown kid at most every few
	// seconds: the first tries may be refused
	waitFor(t, "a token of the new key accepted", time.Minute, func() bool {
		code, _ := w.bearer(t, u, fresh)
		return code == 200
	})
	if code, _ := w.bearer(t, u, old); code != http.StatusUnauthorized {
		t.Errorf("a token of the rotated-out key: %d, want 401", code)
	}
}

// sliceData is the data of the array API's JSON answer, printed.
func sliceData(t *testing.T, body string) string {
	t.Helper()
	var out struct {
		Data []int `json:"data"`
	}
	if err := json.Unmarshal([]byte(body), &out); err != nil {
		return "not JSON: " + body
	}
	return fmt.Sprint(out.Data)
}

// authFailures reads zarrgw_auth_failures_total by reason.
func (w *world) authFailures(t *testing.T) map[string]int {
	t.Helper()
	code, body, _ := w.call(t, "GET", w.gw.URL+"/metrics", "", "Authorization", "Bearer "+w.steadyToken)
	if code != 200 {
		t.Fatalf("/metrics: %d", code)
	}
	out := map[string]int{}
	re := regexp.MustCompile(`(?m)^zarrgw_auth_failures_total\{reason="([^"]+)"\} (\d+)`)
	for _, m := range re.FindAllStringSubmatch(body, -1) {
		n, _ := strconv.Atoi(m[2])
		out[m[1]] = n
	}
	return out
}

// forge rebuilds token with header and the signature sign makes of
// "header.payload".
func forge(t *testing.T, token string, header map[string]any, sign func([]byte) []byte) string {
	t.Helper()
	parts := strings.Split(token, ".")
	h, err := json.Marshal(header)
	must(t, err)
	in := base64.RawURLEncoding.EncodeToString(h) + "." + parts[1]
	return in + "." + base64.RawURLEncoding.EncodeToString(sign([]byte(in)))
}

func kidOf(t *testing.T, token string) string {
	t.Helper()
	h, err := base64.RawURLEncoding.DecodeString(strings.Split(token, ".")[0])
	must(t, err)
	var head struct {
		Kid string `json:"kid"`
	}
	must(t, json.Unmarshal(h, &head))
	return head.Kid
}

// publicKeyPEM is the provider's first RSA key as PEM, which a verifier
// that let the token choose HMAC would take for the shared secret.
func publicKeyPEM(t *testing.T, jwksURL string) []byte {
	t.Helper()
	resp, err := client.Get(jwksURL)
	must(t, err)
	defer resp.Body.Close()
	var set jose.JSONWebKeySet
	must(t, json.NewDecoder(resp.Body).Decode(&set))
	for _, k := range set.Keys {
		if pub, ok := k.Key.(*rsa.PublicKey); ok {
			der, err := x509.MarshalPKIXPublicKey(pub)
			must(t, err)
			return pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})
		}
	}
	t.Fatalf("no RSA key at %s", jwksURL)
	return nil
}

// signedByUnknownKey signs token's claims with a key of the test's own.
func signedByUnknownKey(t *testing.T, token string) string {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	must(t, err)
	var kid [8]byte
	rand.Read(kid[:])
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.RS256, Key: jose.JSONWebKey{Key: key, KeyID: hex.EncodeToString(kid[:])}}, nil)
	must(t, err)
	payload, err := base64.RawURLEncoding.DecodeString(strings.Split(token, ".")[1])
	must(t, err)
	sig, err := signer.Sign(payload)
	must(t, err)
	out, err := sig.CompactSerialize()
	must(t, err)
	return out
}

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}

func sha256Hex(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}
