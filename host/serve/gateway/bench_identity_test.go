package gateway_test

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
)

// The small GET of BenchmarkSmallGet by a caller that must be identified:
// a static token (its SHA-256 compared with every principal's), and an
// identity provider's JWT matched to a principal by its claims (verified
// once, then known by its SHA-256 until it expires or the keys change).
//
//	go test -run '^$' -bench 'SmallGet' -benchmem ./host/serve/gateway
func BenchmarkSmallGetAuthenticated(b *testing.B) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		b.Fatal(err)
	}
	idp := httptest.NewServer(nil)
	b.Cleanup(idp.Close)
	idp.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if strings.HasSuffix(r.URL.Path, "openid-configuration") {
			json.NewEncoder(w).Encode(map[string]string{"issuer": idp.URL, "jwks_uri": idp.URL + "/keys"})
			return
		}
		json.NewEncoder(w).Encode(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: &key.PublicKey, KeyID: "k1", Algorithm: "RS256", Use: "sig"}}})
	})
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.RS256, Key: jose.JSONWebKey{Key: key, KeyID: "k1"}}, nil)
	if err != nil {
		b.Fatal(err)
	}
	claims, _ := json.Marshal(map[string]any{"iss": idp.URL, "aud": "zarrgw", "sub": "ana", "groups": []string{"analysts"},
		"iat": time.Now().Unix(), "exp": time.Now().Add(time.Hour).Unix()})
	sig, err := signer.Sign(claims)
	if err != nil {
		b.Fatal(err)
	}
	jwt, _ := sig.CompactSerialize()
	const token = "bench-static-token-of-some-length"
	sum := sha256.Sum256([]byte(token))
	g := smallGateway(b, fmt.Sprintf(`
identity_provider "corp" {
  issuer   = %q
  audience = "zarrgw"
}
principal "analysts" {
  identity_provider = identity_provider.corp
  claims            = { groups = "analysts" }
}
principal "static" {
  token_sha256 = %q
}
`, idp.URL, hex.EncodeToString(sum[:])))
	for _, c := range []struct{ name, bearer string }{{"token", token}, {"jwt", jwt}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				i := 0
				for pb.Next() {
					w := httptest.NewRecorder()
					r := httptest.NewRequest(http.MethodGet, fmt.Sprintf("/d/small/k%d", i%100), nil)
					r.Header.Set("Authorization", "Bearer "+c.bearer)
					g.ServeHTTP(w, r)
					if w.Code != 200 {
						b.Fatalf("%d %s", w.Code, w.Body)
					}
					i++
				}
			})
		})
	}
}
