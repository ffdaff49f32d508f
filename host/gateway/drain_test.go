package gateway_test

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/zarrgw/zarrgw/host/config"
	"github.com/zarrgw/zarrgw/host/gateway"
	"github.com/zarrgw/zarrgw/host/registry"
	"github.com/zarrgw/zarrgw/host/stack"
)

// On a shutdown with drain_delay, the gateway first drains: /readyz
// fails and every response closes its connection, while requests are
// still served and new connections still accepted; only then does the
// listener close. Without the drain, a load balancer's next request would
// meet a closed port.
func TestDrainBeforeTheListenerCloses(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "v"), []byte("value"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, diags := config.Parse([]byte(`store "fs" "d" {
  root = "`+root+`"
}
dataset "d" {
  store = store.fs.d
}
server {
  listen      = "127.0.0.1:0"
  drain_delay = "20s"
}
`), "/tmp/drain.hcl", registry.Bundled().Catalog())
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	host, err := stack.Start(cfg, registry.Bundled(), quiet)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { host.Close() })
	g, err := gateway.New(context.Background(), cfg, host, gateway.Options{Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + ln.Addr().String()
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- g.Serve(ctx, ln) }()
	client := &http.Client{Timeout: time.Minute}
	get := func(path string) (*http.Response, error) {
		resp, err := client.Get(base + path)
		if err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
		return resp, err
	}
	if resp, err := get("/readyz"); err != nil || resp.StatusCode != 200 {
		t.Fatalf("/readyz before the shutdown: %v %v", resp, err)
	}
	cancel()
	deadline := time.Now().Add(time.Minute)
	for {
		resp, err := get("/readyz")
		if err != nil {
			t.Fatalf("/readyz while draining: %v (the listener closed before readiness failed)", err)
		}
		if resp.StatusCode == http.StatusServiceUnavailable {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("/readyz did not fail within a minute of the shutdown")
		}
		time.Sleep(10 * time.Millisecond)
	}
	// still served, on a new connection, each closing its connection
	resp, err := get("/d/d/v")
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("a read while draining: %v %v", resp, err)
	}
	if !resp.Close && !strings.EqualFold(resp.Header.Get("Connection"), "close") {
		t.Errorf("a response while draining keeps its connection open")
	}
	select {
	case err := <-served:
		t.Fatalf("Serve returned during the drain: %v", err)
	default:
	}
	if err := <-served; err != nil {
		t.Fatalf("Serve after the drain: %v", err)
	}
	if _, err := get("/readyz"); err == nil {
		t.Error("the listener still answers after the shutdown")
	}
}
