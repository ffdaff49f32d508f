package servers

import (
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	toxiproxy "github.com/Shopify/toxiproxy/v2"
	"github.com/rs/zerolog"
)

// Toxiproxy starts a TCP proxy on a free loopback port in front of
// upstream (host:port), for toxics that break connections: latency,
// resets, closed streams. It stops when the test ends.
func Toxiproxy(t testing.TB, upstream string) *toxiproxy.Proxy {
	t.Helper()
	api := toxiproxy.NewServer(toxiproxy.NewMetricsContainer(nil), zerolog.Nop())
	p := toxiproxy.NewProxy(api, "store", "127.0.0.1:0", upstream)
	if err := p.Start(); err != nil {
		t.Fatalf("toxiproxy: %v", err)
	}
	t.Cleanup(p.Stop)
	return p
}

// Front is an HTTP reverse proxy in front of a server that answers chosen
// requests itself with a chosen status, for faults that are answers
// rather than broken connections (toxiproxy works below HTTP): throttling,
// refusals.
type Front struct {
	// URL is the front's base URL, http://127.0.0.1:PORT.
	URL string
	// Addr is its host:port.
	Addr     string
	mu       sync.Mutex
	next     []Answer          // answers for the next requests, in order
	paths    map[string]Answer // answers for requests whose path contains the key
	requests atomic.Int64
}

// Answer is what the front says instead of the server.
type Answer struct {
	Status int
	// Body is sent as application/xml, as S3 and Azure do.
	Body string
	// Header is added to the answer (Azure puts its error code in
	// x-ms-error-code).
	Header map[string]string
}

// NewFront starts a front for the server at upstream (host:port); it
// stops when the test ends. The Host header passes unchanged, so request
// signatures made for the front stay valid.
func NewFront(t testing.TB, upstream string) *Front {
	t.Helper()
	target := &url.URL{Scheme: "http", Host: upstream}
	proxy := &httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) {
		r.SetURL(target)
		r.Out.Host = r.In.Host
	}}
	f := &Front{paths: map[string]Answer{}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.requests.Add(1)
		if a, ok := f.answer(r); ok {
			for k, v := range a.Header {
				w.Header().Set(k, v)
			}
			w.Header().Set("Content-Type", "application/xml")
			w.WriteHeader(a.Status)
			if r.Method != http.MethodHead {
				_, _ = w.Write([]byte(a.Body))
			}
			return
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	f.URL, f.Addr = srv.URL, strings.TrimPrefix(srv.URL, "http://")
	return f
}

func (f *Front) answer(r *http.Request) (Answer, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.next) > 0 {
		a := f.next[0]
		f.next = f.next[1:]
		return a, true
	}
	for part, a := range f.paths {
		if strings.Contains(r.URL.Path, part) {
			return a, true
		}
	}
	return Answer{}, false
}

// Next makes the front answer the next n requests with a.
func (f *Front) Next(n int, a Answer) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for range n {
		f.next = append(f.next, a)
	}
}

// OnPath makes the front answer every request whose (unescaped) path contains
// part with a.
func (f *Front) OnPath(part string, a Answer) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.paths[part] = a
}

// Requests is how many requests reached the front.
func (f *Front) Requests() int64 { return f.requests.Load() }

// LostAnswer is an HTTP proxy in front of a server that sends the first
// request matching on to it, so that it is applied, and then cuts the
// client's connection before the answer reaches it, as a network failure
// after the request was sent does. Other requests pass.
type LostAnswer struct {
	// URL is the proxy's, http://127.0.0.1:PORT.
	URL string
	cut atomic.Bool
}

// LoseAnswer starts a LostAnswer in front of upstream (a base URL) until
// the test ends.
func LoseAnswer(t testing.TB, upstream string, match func(*http.Request) bool) *LostAnswer {
	t.Helper()
	target, err := url.Parse(upstream)
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(target)
	l := &LostAnswer{}
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if match(r) && l.cut.CompareAndSwap(false, true) {
			proxy.ServeHTTP(httptest.NewRecorder(), r) // applied upstream
			if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
				conn.Close() // its answer lost
			}
			return
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(front.Close)
	l.URL = front.URL
	return l
}

// Cut reports whether an answer was lost.
func (l *LostAnswer) Cut() bool { return l.cut.Load() }
