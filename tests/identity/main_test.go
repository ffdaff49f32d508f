// Package identity runs `zarrgw serve` with identities from a real OpenID
// Connect provider (Dex, started by the tests with static users in
// groups), temporary S3 credentials obtained by aws-cli and boto3 with
// AssumeRoleWithWebIdentity, and rate limits per principal. Every
// credential a test uses is remembered, and each test ends by searching
// the gateways' logs and every response body it received for them.
//
// No test asserts a duration: waits follow progress (a token's expiry, a
// provider's restart), bounded only against a hang.
package identity

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	bin "github.com/zarrgw/zarrgw/tests/support/binary"
	"github.com/zarrgw/zarrgw/tests/support/servers"
)

var zarrgwBin string

func TestMain(m *testing.M) { bin.Main(m, &zarrgwBin) }

// Users of the providers, by group.
var (
	analyst  = servers.DexUser{Email: "ana@example.org", Username: "ana", Password: "ana-pass-1", Groups: []string{"analysts"}}
	visitor  = servers.DexUser{Email: "vic@example.org", Username: "vic", Password: "vic-pass-1", Groups: []string{"visitors"}}
	ingester = servers.DexUser{Email: "ing@example.org", Username: "ing", Password: "ing-pass-1", Groups: []string{"ingest", "analysts"}}
	users    = []servers.DexUser{analyst, visitor, ingester}
)

// world is what one test runs against: providers, a gateway (or two
// replicas) over one fs store with a small array, and the credentials
// the test used, for the search at its end.
type world struct {
	corp, brief *servers.Dex
	root, file  string
	env         []string
	gw          *bin.Gateway
	// the static tokens of the principals "limited" and "steady", and
	// their S3 keys
	limitedToken, steadyToken   string
	limitedSecret, steadySecret string
	seal                        string

	mu      sync.Mutex
	secrets []string
	bodies  []string
	gws     []*bin.Gateway
}

// The array every test reads: climate/t, uint8, four values.
var arrayValues = []byte{3, 1, 4, 1}

const arrayMeta = `{"zarr_format":3,"node_type":"array","shape":[4],"data_type":"uint8",
"chunk_grid":{"name":"regular","configuration":{"chunk_shape":[4]}},
"chunk_key_encoding":{"name":"default","configuration":{"separator":"/"}},
"fill_value":0,"codecs":[{"name":"bytes"}]}`

// newWorld starts the providers and one gateway.
func newWorld(t *testing.T) *world {
	t.Helper()
	w := &world{root: t.TempDir()}
	w.corp = servers.StartDex(t, servers.DexOptions{Users: users, OtherClients: []string{"another-app"}})
	// brief's tokens last 20 seconds: the expiry tests wait them out
	w.brief = servers.StartDex(t, servers.DexOptions{Users: users, IDTokenExpiry: "20s"})
	dir := filepath.Join(w.root, "climate", "t")
	must(t, os.MkdirAll(filepath.Join(dir, "c"), 0o755))
	must(t, os.WriteFile(filepath.Join(w.root, "climate", "zarr.json"), []byte(`{"zarr_format":3,"node_type":"group"}`), 0o644))
	must(t, os.WriteFile(filepath.Join(dir, "zarr.json"), []byte(arrayMeta), 0o644))
	must(t, os.WriteFile(filepath.Join(dir, "c", "0"), arrayValues, 0o644))
	w.limitedToken, w.steadyToken = "limited-"+randomHex(16), "steady-"+randomHex(16)
	w.limitedSecret, w.steadySecret = randomHex(20), randomHex(20)
	w.seal = randomHex(32)
	w.remember(w.limitedToken, w.steadyToken, w.limitedSecret, w.steadySecret, w.seal, w.corp.ClientSecret, w.brief.ClientSecret)
	for _, u := range users {
		w.remember(u.Password)
	}
	w.env = []string{"SEAL_KEY=" + w.seal, "LIMITED_SHA=" + sha256Hex(w.limitedToken), "STEADY_SHA=" + sha256Hex(w.steadyToken),
		"LIMITED_SECRET=" + w.limitedSecret, "STEADY_SECRET=" + w.steadySecret}
	w.file = filepath.Join(t.TempDir(), "zarrgw.hcl")
	must(t, os.WriteFile(w.file, []byte(w.config()), 0o644))
	w.gw = w.serve(t)
	t.Cleanup(func() { w.checkNoSecrets(t) })
	return w
}

// serve starts a gateway (a replica) of the world's configuration.
func (w *world) serve(t *testing.T) *bin.Gateway {
	t.Helper()
	g := bin.ServeS3(t, zarrgwBin, w.file, w.env...)
	w.mu.Lock()
	w.gws = append(w.gws, g)
	w.mu.Unlock()
	return g
}

func (w *world) config() string {
	return fmt.Sprintf(`
variable "seal" {
  env       = "SEAL_KEY"
  sensitive = true
}
variable "limited_sha" { env = "LIMITED_SHA" }
variable "steady_sha" { env = "STEADY_SHA" }
variable "limited_secret" {
  env       = "LIMITED_SECRET"
  sensitive = true
}
variable "steady_secret" {
  env       = "STEADY_SECRET"
  sensitive = true
}

identity_provider "corp" {
  issuer   = %q
  audience = %q
  leeway   = "1s"
}
identity_provider "brief" {
  issuer   = %q
  audience = %q
  leeway   = "1s"
}

principal "analysts" {
  identity_provider = identity_provider.corp
  claims            = { groups = "analysts" }
}
principal "ingest" {
  identity_provider = identity_provider.corp
  claims            = { groups = "ingest" }
}
principal "brief" {
  identity_provider = identity_provider.brief
  claims            = { groups = "analysts" }
}
principal "limited" {
  token_sha256         = var.limited_sha
  s3_access_key_id     = "LIMITEDKEY"
  s3_secret_access_key = var.limited_secret
  rate_limit {
    requests_per_second = 0.01
    burst               = 5
  }
}
principal "steady" {
  token_sha256         = var.steady_sha
  s3_access_key_id     = "STEADYKEY"
  s3_secret_access_key = var.steady_secret
}

store "fs" "data" {
  root = %q
}

dataset "climate" {
  store  = store.fs.data
  prefix = "climate"
  access {
    read  = ["analysts", "ingest", "brief", "limited", "steady"]
    write = ["ingest"]
  }
}

server {
  listen = "127.0.0.1:0"
  metrics {
    read = ["analysts", "steady"]
  }
  s3 {
    listen = "127.0.0.1:0"
    sts {
      seal_keys = [var.seal]
    }
  }
}
`, w.corp.Issuer, w.corp.ClientID, w.brief.Issuer, w.brief.ClientID, w.root)
}

// remember adds credentials to those no log line or body may contain.
func (w *world) remember(secrets ...string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, s := range secrets {
		if s != "" {
			w.secrets = append(w.secrets, s)
		}
	}
}

// token gets an ID token of dex for user and remembers it (and its
// signature alone, which is a secret too).
func (w *world) token(t *testing.T, dex *servers.Dex, u servers.DexUser) string {
	t.Helper()
	tok := dex.Token(t, u.Email, u.Password)
	w.rememberJWT(tok)
	return tok
}

func (w *world) rememberJWT(tok string) {
	w.remember(tok)
	if i := strings.LastIndexByte(tok, '.'); i >= 0 && len(tok)-i > 16 {
		w.remember(tok[i+1:])
	}
}

// seen records a response body (or a client's output) for the search.
func (w *world) seen(body string) {
	w.mu.Lock()
	w.bodies = append(w.bodies, body)
	w.mu.Unlock()
}

// checkNoSecrets searches every gateway's log and everything the test
// received for every credential it used.
func (w *world) checkNoSecrets(t *testing.T) {
	w.mu.Lock()
	defer w.mu.Unlock()
	texts := map[string]string{}
	for i, g := range w.gws {
		texts[fmt.Sprintf("gateway %d's log", i)] = g.Log.String()
	}
	for i, b := range w.bodies {
		texts[fmt.Sprintf("response or output %d", i)] = b
	}
	for what, text := range texts {
		for _, s := range w.secrets {
			if strings.Contains(text, s) {
				t.Errorf("%s holds a credential the test used (%.6s...)", what, s)
			}
		}
	}
	if len(w.bodies) == 0 || len(w.secrets) == 0 {
		t.Errorf("nothing searched: %d texts, %d credentials", len(w.bodies), len(w.secrets))
	}
}

// client is the tests' HTTP client, bounded against a hang.
var client = &http.Client{Timeout: time.Minute}

// call sends a request with header pairs and returns the status, body and
// headers; the body is recorded for the search.
func (w *world) call(t *testing.T, method, url, body string, header ...string) (int, string, http.Header) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: reading: %v", method, url, err)
	}
	w.seen(string(b))
	return resp.StatusCode, string(b), resp.Header
}

// bearer is a GET with a bearer token.
func (w *world) bearer(t *testing.T, url, token string) (int, string) {
	t.Helper()
	code, body, _ := w.call(t, http.MethodGet, url, "", "Authorization", "Bearer "+token)
	return code, body
}

// waitFor polls cond until it holds, failing past bound.
func waitFor(t *testing.T, what string, bound time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(bound)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %s", what, bound)
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// need returns a client program's path, or says it is missing (a
// failure under CI=true).
func need(t *testing.T, path string) string {
	t.Helper()
	if _, err := exec.LookPath(path); err != nil {
		servers.Unavailable(t, "%s: %v (scripts/setup.sh installs it)", path, err)
	}
	return path
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
