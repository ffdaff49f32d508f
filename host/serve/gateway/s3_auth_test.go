package gateway_test

import (
	"net/http"
	"net/url"
	"testing"
	"time"
)

// A request signed with a principal's key that carries a security token
// in any form is a session's request, and a token the gateway did not
// seal (here: no sts block, so every token) is refused rather than the
// token ignored and the request served as the principal. The verifier
// asks for a session only for requests the S3 API found a token in; each
// form of token must be found.
func TestS3SecurityTokenNeverIgnored(t *testing.T) {
	sg := newS3Gateway(t, s3Options{})
	putBytes(t, sg.writer(), "private", "k", []byte("value"))
	for name, sr := range map[string]signedRequest{
		"header": {method: "GET", path: "/private/k", headers: map[string]string{"X-Amz-Security-Token": "forged"}},
		"header, an empty value first": {method: "GET", path: "/private/k", headers: map[string]string{"X-Amz-Security-Token": "forged"},
			tamper: func(r *http.Request) { r.Header["X-Amz-Security-Token"] = []string{"", "forged"} }},
		"query, presigned":     {method: "GET", path: "/private/k?X-Amz-Security-Token=forged", presign: true, presignExpires: time.Minute},
		"query, header-signed": {method: "GET", path: "/private/k?X-Amz-Security-Token=forged"},
	} {
		t.Run(name, func(t *testing.T) {
			sg.rec.reset()
			resp, body := sg.send(t, sr)
			if resp.StatusCode != http.StatusBadRequest || s3Code(resp, body) != "InvalidToken" {
				t.Errorf("%d %s, want 400 InvalidToken: %s", resp.StatusCode, s3Code(resp, body), body)
			}
			if n := sg.rec.reset(); n != 0 {
				t.Errorf("%d store calls before the refusal", n)
			}
		})
	}
	// the control: without a token, the principal reads
	resp, body := sg.send(t, signedRequest{method: "GET", path: "/private/k"})
	if resp.StatusCode != 200 || body != "value" {
		t.Fatalf("a well-signed GET: %d %q", resp.StatusCode, body)
	}
}

// Keys that need encoding and keys that do not route to the same values
// (the S3 API checks a key's segments in place when nothing in it is
// escaped), and a bad segment is refused either way.
func TestS3KeysEscapedOrNot(t *testing.T) {
	sg := newS3Gateway(t, s3Options{})
	putBytes(t, sg.writer(), "open", "a b/c~d.e", []byte("spaced"))
	putBytes(t, sg.writer(), "open", "plain/key-1_x.y", []byte("plain"))
	for path, want := range map[string]string{
		"/open/a%20b/c~d.e":       "spaced",
		"/open/a%20b/c%7Ed.e":     "spaced",
		"/open/plain/key-1_x.y":   "plain",
		"/open/plain/key%2D1_x.y": "plain",
	} {
		resp, body := sg.send(t, signedRequest{method: "GET", path: path, anonymous: true})
		if resp.StatusCode != 200 || body != want {
			t.Errorf("GET %s: %d %q, want %q", path, resp.StatusCode, body, want)
		}
	}
	for _, path := range []string{"/open/plain/./key", "/open/plain/..", "/open/.zarrgw_x/k", "/open/plain/%2e"} {
		u, _ := url.Parse(sg.s3.URL + path)
		resp, body := sg.send(t, signedRequest{method: "GET", path: u.EscapedPath(), anonymous: true})
		if resp.StatusCode != http.StatusBadRequest || s3Code(resp, body) != "InvalidArgument" {
			t.Errorf("GET %s: %d %s, want 400 InvalidArgument", path, resp.StatusCode, s3Code(resp, body))
		}
	}
}
