package gateway_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// On a shutdown with drain_delay, the gateway first drains: /readyz
// fails and every response closes its connection, while requests are
// still served and new connections still accepted; only then (here when
// Hurry ends the hour's drain, as a second signal does) does the listener
// close. Without the drain, a load balancer's next request would meet a
// closed port.
func TestDrainBeforeTheListenerCloses(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "v"), []byte("value"), 0o644); err != nil {
		t.Fatal(err)
	}
	g := configGateway(t, `store "fs" "d" {
  root = "`+root+`"
}
dataset "d" {
  store = store.fs.d
}
server {
  listen      = "127.0.0.1:0"
  drain_delay = "1h"
}
`, "/tmp/drain.hcl")
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
	g.Hurry()
	select {
	case err := <-served:
		if err != nil {
			t.Fatalf("Serve after the drain: %v", err)
		}
	case <-time.After(time.Minute): // against a hang: Hurry ends the drain at once
		t.Fatal("Serve did not return within a minute of Hurry")
	}
	if _, err := get("/readyz"); err == nil {
		t.Error("the listener still answers after the shutdown")
	}
}
