package gateway_test

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/xml"
	"hash/crc32"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
)

// signedRequest is a request to the S3 listener signed by the SDK's
// signer, and changed after signing by tamper (when not nil).
type signedRequest struct {
	method, path, body string
	keyID, secret      string
	region             string
	at                 time.Time
	payloadHash        string // of body when ""
	headers            map[string]string
	host               string // the Host header, when not the listener's address
	tamper             func(*http.Request)
	anonymous, presign bool
	presignExpires     time.Duration
}

func (sg *s3Gateway) send(t *testing.T, sr signedRequest) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(sr.method, sg.s3.URL+sr.path, strings.NewReader(sr.body))
	if err != nil {
		t.Fatal(err)
	}
	if sr.body == "" {
		req.Body, req.ContentLength = http.NoBody, 0
	}
	for k, v := range sr.headers {
		req.Header.Set(k, v)
	}
	if sr.host != "" {
		req.Host = sr.host
	}
	if !sr.anonymous {
		if sr.keyID == "" {
			sr.keyID, sr.secret = writerKeyID, writerSecret
		}
		if sr.region == "" {
			sr.region = "eu-test-1"
		}
		if sr.at.IsZero() {
			sr.at = time.Now()
		}
		if sr.payloadHash == "" {
			sum := sha256.Sum256([]byte(sr.body))
			sr.payloadHash = hex.EncodeToString(sum[:])
		}
		creds := aws.Credentials{AccessKeyID: sr.keyID, SecretAccessKey: sr.secret}
		signer := v4.NewSigner()
		if sr.presign {
			q := req.URL.Query()
			q.Set("X-Amz-Expires", strconv.Itoa(int(sr.presignExpires/time.Second)))
			req.URL.RawQuery = q.Encode()
			url, _, err := signer.PresignHTTP(context.Background(), creds, req, "UNSIGNED-PAYLOAD", "s3", sr.region, sr.at)
			if err != nil {
				t.Fatal(err)
			}
			if req, err = http.NewRequest(sr.method, url, nil); err != nil {
				t.Fatal(err)
			}
		} else {
			req.Header.Set("X-Amz-Content-Sha256", sr.payloadHash)
			if err := signer.SignHTTP(context.Background(), creds, req, sr.payloadHash, "s3", sr.region, sr.at); err != nil {
				t.Fatal(err)
			}
		}
	}
	if sr.tamper != nil {
		sr.tamper(req)
	}
	resp, err := sg.s3.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// s3Code reads the code of an S3 error answer (the header for HEAD).
func s3Code(resp *http.Response, body string) string {
	var doc struct{ Code string }
	if xml.Unmarshal([]byte(body), &doc) == nil && doc.Code != "" {
		return doc.Code
	}
	return resp.Header.Get("X-Amz-Error-Code")
}

// Every way a request can be wrong is refused with S3's error code before
// the gateway calls a store.
func TestS3RefusedBeforeAnyStoreCall(t *testing.T) {
	sg := newS3Gateway(t, s3Options{})
	putBytes(t, sg.writer(), "private", "k", []byte("value"))
	hello := "hello"
	helloHash := func() string { s := sha256.Sum256([]byte(hello)); return hex.EncodeToString(s[:]) }()
	cases := []struct {
		name   string
		req    signedRequest
		status int
		code   string
	}{
		{"wrong secret", signedRequest{method: "GET", path: "/private/k", secret: "nope", keyID: writerKeyID}, 403, "SignatureDoesNotMatch"},
		{"unknown access key", signedRequest{method: "GET", path: "/private/k", keyID: "NOBODY", secret: "x"}, 403, "InvalidAccessKeyId"},
		{"wrong region", signedRequest{method: "GET", path: "/private/k", region: "us-west-2"}, 400, "AuthorizationHeaderMalformed"},
		{"signed header altered", signedRequest{method: "GET", path: "/private/k", headers: map[string]string{"X-Amz-Meta-Note": "a"},
			tamper: func(r *http.Request) { r.Header.Set("X-Amz-Meta-Note", "b") }}, 403, "SignatureDoesNotMatch"},
		{"x-amz header added after signing", signedRequest{method: "PUT", path: "/open/target",
			tamper: func(r *http.Request) { r.Header.Set("X-Amz-Copy-Source", "/private/k") }}, 403, "AccessDenied"},
		{"x-amz header beside a presigned URL", signedRequest{method: "PUT", path: "/open/target", presign: true, presignExpires: time.Minute,
			tamper: func(r *http.Request) { r.Header.Set("X-Amz-Copy-Source", "/private/k") }}, 403, "AccessDenied"},
		{"path altered", signedRequest{method: "GET", path: "/private/k",
			tamper: func(r *http.Request) { r.URL.Path, r.URL.RawPath = "/private/other", "" }}, 403, "SignatureDoesNotMatch"},
		{"body altered under its hash", signedRequest{method: "PUT", path: "/private/new", body: "hellO", payloadHash: helloHash}, 400, "XAmzContentSHA256Mismatch"},
		{"body failing its checksum header", signedRequest{method: "PUT", path: "/private/new", body: hello, payloadHash: "UNSIGNED-PAYLOAD",
			headers: map[string]string{"X-Amz-Checksum-Crc32": "AAAAAA=="}}, 400, "BadDigest"},
		{"empty Content-MD5", signedRequest{method: "PUT", path: "/private/new", body: hello, payloadHash: "UNSIGNED-PAYLOAD",
			headers: map[string]string{"Content-Md5": ""}}, 400, "InvalidDigest"},
		{"body failing its Content-MD5", signedRequest{method: "PUT", path: "/private/new", body: hello, payloadHash: "UNSIGNED-PAYLOAD",
			headers: map[string]string{"Content-Md5": "AAAAAAAAAAAAAAAAAAAAAA=="}}, 400, "BadDigest"},
		{"replay beyond the skew window", signedRequest{method: "GET", path: "/private/k", at: time.Now().Add(-16 * time.Minute)}, 403, "RequestTimeTooSkewed"},
		{"from the future", signedRequest{method: "GET", path: "/private/k", at: time.Now().Add(16 * time.Minute)}, 403, "RequestTimeTooSkewed"},
		{"expired presigned URL", signedRequest{method: "GET", path: "/private/k", presign: true, presignExpires: time.Minute, at: time.Now().Add(-2 * time.Minute)}, 403, "AccessDenied"},
		{"presigned URL used for a PUT", signedRequest{method: "GET", path: "/private/k", presign: true, presignExpires: time.Minute,
			tamper: func(r *http.Request) { r.Method = "PUT" }}, 403, "SignatureDoesNotMatch"},
		{"no write scope", signedRequest{method: "PUT", path: "/private/new", body: hello, keyID: readerKeyID, secret: readerSecret}, 403, "AccessDenied"},
		{"anonymous write", signedRequest{method: "PUT", path: "/private/new", body: hello, anonymous: true}, 403, "AccessDenied"},
		{"anonymous read", signedRequest{method: "GET", path: "/private/k", anonymous: true}, 403, "AccessDenied"},
		{"read-only dataset", signedRequest{method: "PUT", path: "/frozen/new", body: hello}, 403, "AccessDenied"},
		{"bucket not to be listed", signedRequest{method: "GET", path: "/private?list-type=2", anonymous: true}, 403, "AccessDenied"},
		{"bucket not to be listed, multipart", signedRequest{method: "GET", path: "/private?uploads", anonymous: true}, 403, "AccessDenied"},
		{"no such bucket", signedRequest{method: "GET", path: "/nobucket/k"}, 404, "NoSuchBucket"},
		{"traversal ..", signedRequest{method: "GET", path: "/open/a/../../private/k", anonymous: true}, 400, "InvalidArgument"},
		{"traversal %2e%2e", signedRequest{method: "GET", path: "/open/%2e%2e/private/k", anonymous: true}, 400, "InvalidArgument"},
		{"double-encoded traversal", signedRequest{method: "GET", path: "/open/%252e%252e/x", anonymous: true}, 400, "InvalidArgument"},
		{"encoded separator", signedRequest{method: "GET", path: "/open/a%2fb", anonymous: true}, 400, "InvalidArgument"},
		{"backslash", signedRequest{method: "GET", path: "/open/a%5c..%5cb", anonymous: true}, 400, "InvalidArgument"},
		{"NUL", signedRequest{method: "GET", path: "/open/a%00b", anonymous: true}, 400, "InvalidArgument"},
		{"empty segment", signedRequest{method: "PUT", path: "/open/a//b", body: hello}, 400, "InvalidArgument"},
		{"the gateway's own keys", signedRequest{method: "GET", path: "/open/.zarrgw_multipart/x/upload"}, 400, "InvalidArgument"},
		{"copy from a forbidden bucket", signedRequest{method: "PUT", path: "/open/stolen", anonymous: true,
			headers: map[string]string{"X-Amz-Copy-Source": "/private/k"}}, 403, "AccessDenied"},
		{"copy with a traversal", signedRequest{method: "PUT", path: "/open/x", anonymous: true,
			headers: map[string]string{"X-Amz-Copy-Source": "/open/a/../../private/k"}}, 400, "InvalidArgument"},
		{"a method objects do not take", signedRequest{method: "PATCH", path: "/open/k", anonymous: true}, 405, "MethodNotAllowed"},
	}
	// the elements S3 adds to these errors' documents (SDKs follow Region
	// to the right region)
	elements := map[string]string{
		"wrong region":                 "<Region>eu-test-1</Region>",
		"unknown access key":           "<AWSAccessKeyId>NOBODY</AWSAccessKeyId>",
		"a method objects do not take": "<Method>PATCH</Method><ResourceType>OBJECT</ResourceType>",
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sg.rec.reset()
			resp, body := sg.send(t, c.req)
			if resp.StatusCode != c.status || s3Code(resp, body) != c.code {
				t.Errorf("%d %s, want %d %s: %s", resp.StatusCode, s3Code(resp, body), c.status, c.code, body)
			}
			if want := elements[c.name]; !strings.Contains(body, want) {
				t.Errorf("the error document lacks %s: %s", want, body)
			}
			if n := sg.rec.reset(); n != 0 {
				t.Errorf("%d store calls before the refusal", n)
			}
		})
	}
	// the control: the same requests, right, reach the store
	resp, body := sg.send(t, signedRequest{method: "GET", path: "/private/k"})
	if resp.StatusCode != 200 || body != "value" || sg.rec.reset() == 0 {
		t.Fatalf("a well-signed GET: %d %q", resp.StatusCode, body)
	}
}

// An anonymous HEAD of a bucket tells the region, as S3 does, whether or
// not it may be read.
func TestS3HeadBucketRegion(t *testing.T) {
	sg := newS3Gateway(t, s3Options{})
	for path, status := range map[string]int{"/open": 200, "/private": 403} {
		resp, _ := sg.send(t, signedRequest{method: "HEAD", path: path, anonymous: true})
		if resp.StatusCode != status || resp.Header.Get("X-Amz-Bucket-Region") != "eu-test-1" {
			t.Errorf("HEAD %s: %d, region %q", path, resp.StatusCode, resp.Header.Get("X-Amz-Bucket-Region"))
		}
	}
}

// Secrets never reach the access log.
func TestS3SecretsNotLogged(t *testing.T) {
	// the signing key never travels, so the only secret on the wire is a
	// presigned URL's signature: the log records the path only
	var logged syncBuffer
	sg := newS3Gateway(t, s3Options{log: &logged})
	resp, _ := sg.send(t, signedRequest{method: "GET", path: "/open/k", presign: true, presignExpires: time.Minute})
	resp.Body.Close()
	if strings.Contains(logged.String(), "X-Amz-Signature") || strings.Contains(logged.String(), writerSecret) || !strings.Contains(logged.String(), `"path":"/open/k"`) {
		t.Fatalf("access log: %s", logged.String())
	}
}

// With a domain, BUCKET.DOMAIN/KEY names the same key as /BUCKET/KEY.
func TestS3VirtualHostedStyle(t *testing.T) {
	sg := newS3Gateway(t, s3Options{})
	putBytes(t, sg.writer(), "private", "dir/k", []byte("hosted"))
	resp, body := sg.send(t, signedRequest{method: "GET", path: "/dir/k", host: "private.s3.test"})
	if resp.StatusCode != 200 || body != "hosted" {
		t.Fatalf("GET private.s3.test/dir/k: %d %s", resp.StatusCode, body)
	}
	resp, body = sg.send(t, signedRequest{method: "GET", path: "/?list-type=2&prefix=dir/", host: "private.s3.test"})
	if resp.StatusCode != 200 || !strings.Contains(body, "<Key>dir/k</Key>") {
		t.Fatalf("listing private.s3.test: %d %s", resp.StatusCode, body)
	}
	resp, body = sg.send(t, signedRequest{method: "GET", path: "/dir/k", host: "private.s3.test", anonymous: true})
	if resp.StatusCode != 403 || s3Code(resp, body) != "AccessDenied" {
		t.Fatalf("anonymous GET private.s3.test/dir/k: %d %s", resp.StatusCode, body)
	}
}

// An unsigned aws-chunked upload is decoded as a signed one is: the
// framing and the checksum trailer never become data, and a trailer that
// does not match the data is refused.
func TestS3AnonymousChunkedUpload(t *testing.T) {
	sg := newS3Gateway(t, s3Options{})
	sum := crc32.ChecksumIEEE([]byte("hello world"))
	good := base64.StdEncoding.EncodeToString([]byte{byte(sum >> 24), byte(sum >> 16), byte(sum >> 8), byte(sum)})
	for trailer, want := range map[string]int{good: 200, "AAAAAA==": 400} {
		body := "6\r\nhello \r\n5\r\nworld\r\n0\r\nx-amz-checksum-crc32:" + trailer + "\r\n\r\n"
		resp, text := sg.send(t, signedRequest{method: "PUT", path: "/open/chunked", body: body, anonymous: true, headers: map[string]string{
			"X-Amz-Content-Sha256": "STREAMING-UNSIGNED-PAYLOAD-TRAILER", "Content-Encoding": "aws-chunked",
			"X-Amz-Decoded-Content-Length": "11", "X-Amz-Trailer": "x-amz-checksum-crc32"}})
		if resp.StatusCode != want {
			t.Fatalf("trailer %s: %d %s, want %d", trailer, resp.StatusCode, text, want)
		}
	}
	got, err := os.ReadFile(filepath.Join(sg.root, "open", "chunked"))
	if err != nil || string(got) != "hello world" {
		t.Fatalf("stored %q (%v), want the decoded payload", got, err)
	}
	resp, text := sg.send(t, signedRequest{method: "PUT", path: "/open/forged", body: "x", anonymous: true,
		headers: map[string]string{"X-Amz-Content-Sha256": "STREAMING-AWS4-HMAC-SHA256-PAYLOAD", "Content-Encoding": "aws-chunked"}})
	if resp.StatusCode != 403 || s3Code(resp, text) != "AccessDenied" {
		t.Fatalf("a signed streaming payload without a signature: %d %s", resp.StatusCode, text)
	}
}

// An aws-chunked upload without a declared trailer checksum is taken (S3
// computes its own then), and the answers of mapped errors use S3's texts,
// never a store's paths.
func TestS3ChunkedWithoutTrailerAndMessages(t *testing.T) {
	sg := newS3Gateway(t, s3Options{})
	body := "5\r\nhello\r\n0\r\n\r\n"
	resp, text := sg.send(t, signedRequest{method: "PUT", path: "/open/plain", body: body, anonymous: true, headers: map[string]string{
		"X-Amz-Content-Sha256": "STREAMING-UNSIGNED-PAYLOAD-TRAILER", "Content-Encoding": "aws-chunked", "X-Amz-Decoded-Content-Length": "5"}})
	if resp.StatusCode != 200 {
		t.Fatalf("aws-chunked without x-amz-trailer: %d %s", resp.StatusCode, text)
	}
	resp, text = sg.send(t, signedRequest{method: "GET", path: "/open/no/such/key"})
	if s3Code(resp, text) != "NoSuchKey" || !strings.Contains(text, "The specified key does not exist.") || strings.Contains(text, "fs:") {
		t.Fatalf("missing key: %d %s", resp.StatusCode, text)
	}
}
