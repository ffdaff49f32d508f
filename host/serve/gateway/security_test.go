package gateway_test

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// Traversal attempts in every encoding are refused with 400, and none of
// them reaches a store.
func TestTraversalNeverReachesAStore(t *testing.T) {
	tg := newTestGateway(t)
	tg.rec.reset()
	paths := []string{
		"/d/open/../private/secret",
		"/d/open/a/../../private/x",
		"/d/open/./zarr.json",
		"/d/open/a//b",
		"/d/open/%2e%2e/private/x",
		"/d/open/%2E%2E%2Fprivate%2Fx",
		"/d/open/a%2fb",
		"/d/open/%252e%252e/private",
		"/d/open/%252fetc",
		"/d/open/a%5cb",
		"/d/open/..%5c..%5cetc",
		"/d/open/a%00b",
		"/d/open/%2500",
		"/d/open/a%0ab",
		"/d/%2e%2e/x",
		"/d/open/%zz",
	}
	for _, p := range paths {
		for _, m := range []string{http.MethodGet, http.MethodPut, http.MethodDelete} {
			req, err := http.NewRequest(m, tg.URL, strings.NewReader("x"))
			if err != nil {
				t.Fatal(err)
			}
			req.URL.Opaque = p // sent as written, not cleaned by the client
			resp, err := tg.Client().Do(req)
			if err != nil {
				t.Fatalf("%s %s: %v", m, p, err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusBadRequest {
				t.Errorf("%s %s: %d, want 400", m, p, resp.StatusCode)
			}
		}
	}
	if n := tg.rec.reset(); n != 0 {
		t.Fatalf("refused paths made %d store calls: %v", n, tg.rec.calls)
	}
}

// Tokens: none where one is needed is 401 with the bearer challenge, an
// unknown one 401, one without the scope 403, a read-only dataset refuses
// every write with 403; none of these reaches a store.
func TestAccessControl(t *testing.T) {
	tg := newTestGateway(t)
	tg.put(t, "/d/private/k", "v", "Authorization: Bearer "+writerToken)
	tg.rec.reset()
	cases := []struct {
		method, path, auth string
		status             int
	}{
		{"GET", "/d/private/k", "", 401},
		{"GET", "/d/private/k", "Bearer wrong", 401},
		{"GET", "/d/open/k", "Bearer wrong", 401},
		{"GET", "/d/private/k", "Basic d3JpdGVyOnNlY3JldA==", 401},
		{"PUT", "/d/private/k", "", 401},
		{"PUT", "/d/private/k", "Bearer " + readerToken, 403},
		{"DELETE", "/d/private/k", "Bearer " + readerToken, 403},
		{"PUT", "/d/frozen/k", "Bearer " + writerToken, 403},
		{"PUT", "/d/frozen/k", "", 403},
		{"DELETE", "/d/frozen/k", "", 403},
		{"PUT", "/d/frozen/a?slice=0:1&format=raw", "", 403},
	}
	for _, c := range cases {
		var h []string
		if c.auth != "" {
			h = append(h, "Authorization: "+c.auth)
		}
		resp, _ := tg.do(t, c.method, c.path, "x", h...)
		if resp.StatusCode != c.status {
			t.Errorf("%s %s (%q): %d, want %d", c.method, c.path, c.auth, resp.StatusCode, c.status)
		}
		if c.status == 401 && !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Bearer") {
			t.Errorf("%s %s: 401 without a bearer challenge", c.method, c.path)
		}
	}
	if n := tg.rec.reset(); n != 0 {
		t.Fatalf("refused requests made %d store calls: %v", n, tg.rec.calls)
	}
	// with the scope, the same requests go through
	if resp, body := tg.do(t, "GET", "/d/private/k", "", "Authorization: Bearer "+readerToken); resp.StatusCode != 200 || body != "v" {
		t.Fatalf("reader: %d %q", resp.StatusCode, body)
	}
	if resp, _ := tg.do(t, "DELETE", "/d/private/k", "", "Authorization: bearer "+writerToken); resp.StatusCode != 204 {
		t.Fatalf("writer delete: %d", resp.StatusCode)
	}
	// the dataset list shows only what the caller may read
	_, body := tg.do(t, "GET", "/d/", "")
	if strings.Contains(body, "private") || !strings.Contains(body, `"open"`) {
		t.Fatalf("anonymous dataset list: %s", body)
	}
	if _, body = tg.do(t, "GET", "/d/", "", "Authorization: Bearer "+readerToken); !strings.Contains(body, `"private"`) {
		t.Fatalf("reader's dataset list: %s", body)
	}
}

// A body over max_request_size is refused with 413, whether it says its
// length or not, and nothing is stored.
func TestBodyLimit(t *testing.T) {
	tg := newTestGateway(t)
	big := strings.Repeat("x", 16<<20+1)
	tg.rec.reset()
	if resp, _ := tg.do(t, http.MethodPut, "/d/open/big", big); resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Fatalf("with Content-Length: %d", resp.StatusCode)
	}
	if n := tg.rec.reset(); n != 0 {
		t.Fatalf("an oversized body with Content-Length made %d store calls", n)
	}
	req, _ := http.NewRequest(http.MethodPut, tg.URL+"/d/open/big", io.MultiReader(strings.NewReader(big)))
	req.ContentLength = -1 // chunked: the limit is found while reading
	resp, err := tg.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Fatalf("chunked: %d", resp.StatusCode)
	}
	if r, _ := tg.do(t, http.MethodGet, "/d/open/big", ""); r.StatusCode != http.StatusNotFound {
		t.Fatalf("an oversized body was stored: %d", r.StatusCode)
	}
}

// A client that sends its headers slowly (slowloris) is cut off after
// read_header_timeout, without reaching a store.
func TestSlowHeaders(t *testing.T) {
	addr := serveConfig(t, `server {
  listen              = "127.0.0.1:0"
  read_header_timeout = "300ms"
}`, "/etc/zarrgw/slow.hcl")
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	start := time.Now()
	fmt.Fprint(conn, "GET /healthz HTTP/1.1\r\nHost: x\r\n")
	// one header line every 100ms, never the blank line that ends them
	go func() {
		for i := 0; i < 50; i++ {
			time.Sleep(100 * time.Millisecond)
			if _, err := fmt.Fprintf(conn, "X-Slow-%d: 1\r\n", i); err != nil {
				return
			}
		}
	}()
	// the default timeout is 10s: a cut within 8s is the configured one's
	conn.SetReadDeadline(time.Now().Add(8 * time.Second))
	line, err := bufio.NewReader(conn).ReadString('\n')
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() || strings.Contains(line, "200") {
		t.Fatalf("slow headers: connection answered %q (%v) after %s, want it cut after about 300ms", line, err, time.Since(start))
	}
}
