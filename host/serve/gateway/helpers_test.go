package gateway_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/host/runtime/config"
	"github.com/zarrgw/zarrgw/host/runtime/registry"
	"github.com/zarrgw/zarrgw/host/runtime/stack"
	"github.com/zarrgw/zarrgw/host/serve/gateway"
)

// Tokens of the test principals; the configuration holds their SHA-256.
const (
	writerToken = "writer-secret"
	readerToken = "reader-secret"
)

// testDatasets are the datasets of the test configurations: open (anyone
// reads and writes), private (reader reads, writer writes), frozen
// (read-only) and cons (consolidated metadata on the fly).
const testDatasets = `
dataset "open" {
  store  = store.fs.local
  prefix = "open"
  access {
    read  = ["*"]
    write = ["*"]
  }
}
dataset "private" {
  store  = store.fs.local
  prefix = "private"
  access {
    read  = ["reader", "writer"]
    write = ["writer"]
  }
}
dataset "frozen" {
  store     = store.fs.local
  prefix    = "open"
  read_only = true
}
dataset "cons" {
  store        = store.fs.local
  prefix       = "cons"
  consolidated = true
  access {
    read  = ["*"]
    write = ["*"]
  }
}
`

// testConfig declares an fs store in ROOT and four datasets: open (anyone
// reads and writes), private (reader reads, writer writes), frozen
// (read-only) and cons (consolidated metadata on the fly).
const testConfig = `
store "fs" "local" {
  root = "ROOT"
}
principal "writer" {
  token_sha256 = "ef80202ea99d7c668a9677d9242456057ac10488311cb8757674490e194a56e1"
}
principal "reader" {
  token_sha256 = "f03319dee240faa729e0cfa7ab5ffd80a1d64a127e3643f239009abff6382914"
}
` + testDatasets + `server {
  listen           = "127.0.0.1:0"
  max_request_size = "16MiB"
  cache_ttl        = "1h"
}
`

// recorder records every store call the gateway makes.
type recorder struct {
	mu    sync.Mutex
	calls []string
	// fail, when set, makes calls on keys containing it fail as a broken
	// backend would.
	fail string
	// withhold, when set, makes calls on keys containing it fail as a
	// references store's unreadable target does: the detail, naming
	// withheldTarget, withheld from clients.
	withhold string
}

// withheldTarget is the detail of the errors recorder.withhold makes.
const withheldTarget = "http://169.254.169.254/latest/meta-data/iam"

func (r *recorder) hook(ctx context.Context, op, key string, call func(context.Context) error) error {
	r.mu.Lock()
	r.calls = append(r.calls, op+" "+key)
	fail, withhold := r.fail, r.withhold
	r.mu.Unlock()
	if fail != "" && strings.Contains(key, fail) {
		return errors.New("backend down")
	}
	if withhold != "" && strings.Contains(key, withhold) {
		return store.Withhold(fmt.Sprintf("references: key %q: its target could not be read", key),
			fmt.Errorf("references: key %q: target %s: connection refused", key, withheldTarget))
	}
	return call(ctx)
}

func (r *recorder) reset() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := len(r.calls)
	r.calls = nil
	return n
}

// testGateway is a gateway over testConfig in a temporary directory.
type testGateway struct {
	*httptest.Server
	rec  *recorder
	root string
}

func newTestGateway(t testing.TB, extra ...string) *testGateway {
	t.Helper()
	return newGatewayOf(t, testConfig+strings.Join(extra, "\n"))
}

// newGatewayOf serves a configuration whose store root is ROOT, a new
// temporary directory.
func newGatewayOf(t testing.TB, src string) *testGateway {
	t.Helper()
	root := t.TempDir()
	src = strings.Replace(src, "ROOT", root, 1)
	cfg, diags := config.Parse([]byte(src), "/etc/zarrgw/test.hcl", registry.Bundled().Catalog())
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	host, err := stack.Start(cfg, registry.Bundled(), slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { host.Close() })
	rec := &recorder{}
	g, err := gateway.New(context.Background(), cfg, host, gateway.Options{
		Logger: slog.New(slog.NewJSONHandler(io.Discard, nil)), StoreHook: rec.hook,
	})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(g)
	t.Cleanup(srv.Close)
	return &testGateway{Server: srv, rec: rec, root: root}
}

// do sends a request with optional headers ("Name: value") and returns
// the response with its body read.
func (tg *testGateway) do(t testing.TB, method, path string, body string, headers ...string) (*http.Response, string) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, tg.URL+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range headers {
		k, v, _ := strings.Cut(h, ": ")
		req.Header.Set(k, v)
	}
	resp, err := tg.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: reading the body: %v", method, path, err)
	}
	return resp, string(b)
}

// put stores a value through the key API and fails the test otherwise.
func (tg *testGateway) put(t testing.TB, path, value string, headers ...string) {
	t.Helper()
	resp, body := tg.do(t, http.MethodPut, path, value, headers...)
	if resp.StatusCode/100 != 2 {
		t.Fatalf("PUT %s: %d %s", path, resp.StatusCode, body)
	}
}

// serveConfig serves a configuration with Gateway.Serve on a loopback
// listener until the test ends, and returns its address.
func serveConfig(t *testing.T, src, filename string) string {
	t.Helper()
	g := configGateway(t, src, filename)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- g.Serve(ctx, ln) }()
	t.Cleanup(func() { cancel(); <-served })
	return ln.Addr().String()
}

// configGateway is the gateway of a configuration, its plugins and stores
// closed when the test ends; its log is discarded.
func configGateway(t *testing.T, src, filename string) *gateway.Gateway {
	t.Helper()
	return configGatewayWith(t, src, filename, gateway.Options{})
}

// configGatewayWith is configGateway with options (its logger, when
// opts has none, discards).
func configGatewayWith(t *testing.T, src, filename string, opts gateway.Options) *gateway.Gateway {
	t.Helper()
	cfg, diags := config.Parse([]byte(src), filename, registry.Bundled().Catalog())
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	host, err := stack.Start(cfg, registry.Bundled(), quiet)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { host.Close() })
	if opts.Logger == nil {
		opts.Logger = quiet
	}
	g, err := gateway.New(context.Background(), cfg, host, opts)
	if err != nil {
		t.Fatal(err)
	}
	return g
}
