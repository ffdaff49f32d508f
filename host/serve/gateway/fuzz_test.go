package gateway_test

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/zarrgw/zarrgw/core/store"
)

// fuzzMethods are the methods the fuzz targets choose from.
var fuzzMethods = []string{http.MethodGet, http.MethodHead, http.MethodPut, http.MethodDelete, http.MethodPost, http.MethodOptions}

// fuzzRequest builds a request from fuzzed parts, as a server would have
// parsed it, or nil for a target that is no request line at all.
func fuzzRequest(method byte, target, rangeHeader string, body []byte) *http.Request {
	u, err := url.ParseRequestURI(target)
	if err != nil || strings.ContainsAny(target, " \r\n#") {
		return nil // not what a request line can carry
	}
	r, err := http.NewRequest(fuzzMethods[int(method)%len(fuzzMethods)], "http://gw"+u.RequestURI(), bytes.NewReader(body))
	if err != nil {
		return nil
	}
	r.RemoteAddr, r.RequestURI = "192.0.2.1:1234", u.RequestURI()
	if rangeHeader != "" && !strings.ContainsAny(rangeHeader, "\r\n") {
		r.Header.Set("Range", rangeHeader)
	}
	return r
}

// storeKeysSafe fails the test for a store call on a key that leaves its
// dataset or names the gateway's own files.
func storeKeysSafe(t *testing.T, calls []string, reservedAllowed bool) {
	t.Helper()
	for _, c := range calls {
		_, key, _ := strings.Cut(c, " ")
		for seg := range strings.SplitSeq(strings.TrimSuffix(key, "/"), "/") {
			if seg == ".." || seg == "." || strings.ContainsAny(seg, "\\\x00") {
				t.Fatalf("a request reached the store with %q", c)
			}
			if !reservedAllowed && strings.HasPrefix(seg, ".zarrgw_") {
				t.Fatalf("a key API request reached the gateway's own key: %q", c)
			}
		}
		if key != "" && !strings.HasSuffix(key, "/") && store.ValidateKey(key) != nil {
			t.Fatalf("a request reached the store with an invalid key: %q", c)
		}
	}
}

// Any path, query and Range header on the key and array APIs: no panic,
// no store call outside the dataset or on the gateway's own keys, and no
// answer of a failed backend (the store is a healthy directory).
func FuzzGatewayRequest(f *testing.F) {
	for _, seed := range []struct {
		method      byte
		target, rng string
	}{
		{0, "/d/open/a/b", "bytes=0-3"}, {0, "/d/open/?list&delimiter=/&prefix=a/", ""},
		{2, "/d/open/x%2F..%2Fy", ""}, {0, "/d/open/arr?slice=0:2,1&format=json", ""},
		{0, "/d/open/arr?format=png&max_pixels=5", ""}, {1, "/d/private/k", "bytes=-5"},
		{0, "/d/open/a/.zarrgw_bucket", ""}, {0, "/d/open/%252e%252e/k", "bytes=1-0,5-"},
		{0, "/d/cons/.zmetadata", ""}, {0, "/d/open/arr?meta", ""}, {0, "/ui/d/open/arr", ""},
	} {
		f.Add(seed.method, seed.target, seed.rng, []byte("v"))
	}
	tg := newTestGateway(f)
	tg.put(f, "/d/open/a/b", "value")
	f.Fuzz(func(t *testing.T, method byte, target, rng string, body []byte) {
		r := fuzzRequest(method, target, rng, body)
		if r == nil {
			return
		}
		tg.rec.reset()
		w := httptest.NewRecorder()
		tg.Config.Handler.ServeHTTP(w, r)
		tg.rec.mu.Lock()
		calls := append([]string(nil), tg.rec.calls...)
		tg.rec.mu.Unlock()
		storeKeysSafe(t, calls, false)
		if w.Code >= 500 && w.Code != http.StatusNotImplemented {
			t.Fatalf("%s %s: %d %s", r.Method, target, w.Code, w.Body)
		}
	})
}

// Any path, query and Range header on the S3 API, unsigned (anonymous
// requests act as "*", who may write the open dataset): no panic, no
// store call outside a bucket, and no answer of a failed backend.
func FuzzS3Request(f *testing.F) {
	for _, seed := range []struct {
		method      byte
		target, rng string
	}{
		{0, "/open/a/b", "bytes=0-3"}, {0, "/open?list-type=2&prefix=a/&delimiter=/", ""},
		{4, "/open/k?uploads", ""}, {2, "/open/k?partNumber=1&uploadId=00", ""},
		{0, "/open?location", ""}, {0, "/open?uploads&max-uploads=-1", ""},
		{4, "/open?delete", ""}, {0, "/open/a/.zarrgw_multipart/x", ""}, {3, "/open", ""},
		{0, "/open?list-type=2&continuation-token=%00", ""}, {0, "/", ""},
	} {
		f.Add(seed.method, seed.target, seed.rng, []byte("<Delete><Object><Key>a</Key></Object></Delete>"))
	}
	sg := newS3Gateway(f, s3Options{})
	h := sg.g.S3Handler()
	f.Fuzz(func(t *testing.T, method byte, target, rng string, body []byte) {
		r := fuzzRequest(method, target, rng, body)
		if r == nil {
			return
		}
		sg.rec.reset()
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		sg.rec.mu.Lock()
		calls := append([]string(nil), sg.rec.calls...)
		sg.rec.mu.Unlock()
		storeKeysSafe(t, calls, true)
		if w.Code >= 500 && w.Code != http.StatusNotImplemented {
			t.Fatalf("%s %s: %d %s", r.Method, target, w.Code, w.Body)
		}
	})
}
