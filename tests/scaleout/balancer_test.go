package scaleout

import (
	"bytes"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zarrgw/zarrgw/tests/support/servers"
)

// backend is an HTTP server behind nginx that notes every request it
// gets (method, If-Match, If-None-Match, body) and then answers 200 or,
// when breaking, closes the connection without answering: a replica that
// went away after the request reached it, which may have applied it.
type backend struct {
	addr     string
	breaking bool
	mu       sync.Mutex
	got      []string
}

func newBackend(t *testing.T, breaking bool) *backend {
	t.Helper()
	b := &backend{breaking: breaking}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		b.mu.Lock()
		b.got = append(b.got, strings.Join([]string{r.Method, r.Header.Get("If-Match"), r.Header.Get("If-None-Match"), string(body)}, " "))
		b.mu.Unlock()
		if b.breaking {
			if conn, _, err := w.(http.Hijacker).Hijack(); err == nil {
				conn.Close()
			}
			return
		}
		io.WriteString(w, "answered")
	}))
	t.Cleanup(srv.Close)
	b.addr = strings.TrimPrefix(srv.URL, "http://")
	return b
}

// requests are what it got so far.
func (b *backend) requests() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.got...)
}

// closedPort is a loopback address nothing listens on.
func closedPort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

// nginx's retries, request by request: the first backend tried breaks
// the connection once it has the request (or cannot be connected to),
// the second answers. Reads and unconditional writes are passed to the
// second, body and all; writes with If-Match or If-None-Match are not
// (502: the first may have applied them), not even when the first could
// not be connected to, which nginx does not tell apart for PUT. With
// NoRetry nothing is passed on. Each request goes to a freshly loaded
// configuration, whose round robin starts at the first backend (a failed
// backend is otherwise left out for a while).
func TestBalancerRetries(t *testing.T) {
	breaking, closed, good := newBackend(t, true), closedPort(t), newBackend(t, false)
	lb := servers.StartNginx(t, []string{breaking.addr, good.addr}, servers.NginxOptions{})
	for _, c := range []struct {
		first   string // breaking or closed
		noRetry bool
		method  string
		header  []string
		retried bool
	}{
		{first: "breaking", method: "GET", retried: true},
		{first: "breaking", method: "HEAD", retried: true},
		{first: "breaking", method: "PUT", retried: true},
		{first: "breaking", method: "DELETE", retried: true},
		{first: "breaking", method: "PUT", header: []string{"If-Match", `"abc"`}, retried: false},
		{first: "breaking", method: "PUT", header: []string{"If-None-Match", "*"}, retried: false},
		{first: "breaking", method: "POST", retried: false},
		{first: "closed", method: "GET", retried: true},
		{first: "closed", method: "PUT", retried: true},
		{first: "closed", method: "PUT", header: []string{"If-Match", `"abc"`}, retried: false},
		{first: "breaking", noRetry: true, method: "GET", retried: false},
		{first: "closed", noRetry: true, method: "PUT", retried: false},
	} {
		name := c.method + " " + strings.Join(c.header, ": ")
		if c.noRetry {
			name += " (NoRetry)"
		}
		name += ", the first backend " + c.first
		first := breaking.addr
		if c.first == "closed" {
			first = closed
		}
		lb.Reconfigure(t, []string{first, good.addr}, servers.NginxOptions{NoRetry: c.noRetry})
		before, goodBefore := len(lb.Requests(t)), len(good.requests())
		body := "body of " + name
		req, err := http.NewRequest(c.method, lb.URL+"/d/d/k", bytes.NewReader([]byte(body)))
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i+1 < len(c.header); i += 2 {
			req.Header.Set(c.header[i], c.header[i+1])
		}
		resp, err := httpClient.Do(req)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		resp.Body.Close()
		// nginx logs a request once it has answered it: the client may
		// read the answer first.
		var reqs []servers.NginxRequest
		waitUntil(t, name+": logged by nginx", time.Minute, func() bool {
			reqs = lb.Requests(t)
			return len(reqs) > before
		})
		if len(reqs) != before+1 {
			t.Fatalf("%s: nginx logged %d requests, want 1", name, len(reqs)-before)
		}
		r := reqs[before]
		if len(r.Backends) == 0 || r.Backends[0] != first {
			t.Fatalf("%s: nginx tried %v first, not %s; the case shows nothing", name, r.Backends, first)
		}
		gotByGood := good.requests()[goodBefore:]
		if c.retried {
			if resp.StatusCode != http.StatusOK || !r.Retried() || len(gotByGood) != 1 {
				t.Errorf("%s: %s, nginx tried %v (%v), the second backend got %q; want it retried there and answered",
					name, resp.Status, r.Backends, r.Statuses, gotByGood)
			} else if c.method != "HEAD" && !strings.HasSuffix(gotByGood[0], " "+body) {
				t.Errorf("%s: the second backend got %q, not the body", name, gotByGood[0])
			}
		} else if resp.StatusCode != http.StatusBadGateway || r.Retried() || len(gotByGood) != 0 {
			t.Errorf("%s: %s, nginx tried %v (%v), the second backend got %q; want 502 and no retry",
				name, resp.Status, r.Backends, r.Statuses, gotByGood)
		}
		if c.method == "PUT" && (r.Precondition != (len(c.header) > 0)) {
			t.Errorf("%s: nginx logged it as a write with a precondition: %v", name, r.Precondition)
		}
	}
	if t.Failed() {
		t.Logf("the breaking backend got: %q", breaking.requests())
	}
}
