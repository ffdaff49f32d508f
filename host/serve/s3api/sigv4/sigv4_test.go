package sigv4

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
)

// The example keys and time of AWS's S3 SigV4 documentation.
const (
	exampleKey    = "AKIAIOSFODNN7EXAMPLE"
	exampleSecret = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
	emptySHA256   = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
)

func exampleVerifier(now time.Time) *Verifier {
	return &Verifier{Region: "us-east-1", Now: func() time.Time { return now },
		Secrets: func(id string) (string, bool) { return exampleSecret, id == exampleKey }}
}

var exampleTime = time.Date(2013, 5, 24, 0, 0, 0, 0, time.UTC)

// AWS's documented example "GET Object" (a range of test.txt): the
// signature it gives is accepted, and one changed character is not.
func TestDocumentedGetObject(t *testing.T) {
	r := httptest.NewRequest("GET", "http://examplebucket.s3.amazonaws.com/test.txt", nil)
	r.Host = "examplebucket.s3.amazonaws.com"
	r.Header.Set("Range", "bytes=0-9")
	r.Header.Set("X-Amz-Content-Sha256", emptySHA256)
	r.Header.Set("X-Amz-Date", "20130524T000000Z")
	auth := "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request,SignedHeaders=host;range;x-amz-content-sha256;x-amz-date,Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41"
	r.Header.Set("Authorization", auth)
	v := exampleVerifier(exampleTime.Add(time.Minute))
	if _, err := v.Verify(r); err != nil {
		t.Fatalf("documented example refused: %v", err)
	}
	r.Header.Set("Range", "bytes=0-8")
	if _, err := v.Verify(r); !errors.Is(err, ErrSignature) {
		t.Fatalf("a signed header altered: %v", err)
	}
}

// AWS's documented presigned URL for GET test.txt, good for a day.
func TestDocumentedPresignedURL(t *testing.T) {
	u := "http://examplebucket.s3.amazonaws.com/test.txt?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20130524%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Date=20130524T000000Z&X-Amz-Expires=86400&X-Amz-SignedHeaders=host&X-Amz-Signature=aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404"
	r := httptest.NewRequest("GET", u, nil)
	r.Host = "examplebucket.s3.amazonaws.com"
	if _, err := exampleVerifier(exampleTime.Add(23 * time.Hour)).Verify(r); err != nil {
		t.Fatalf("documented presigned URL refused: %v", err)
	}
	// the skew rule does not apply to presigned URLs; expiry does
	if _, err := exampleVerifier(exampleTime.Add(25 * time.Hour)).Verify(r); !errors.Is(err, ErrExpired) {
		t.Fatalf("an expired presigned URL: %v", err)
	}
}

// AWS's documented chunked upload (STREAMING-AWS4-HMAC-SHA256-PAYLOAD):
// 66,560 bytes of 'a' in chunks of 64 KiB, 1 KiB and 0, each signed.
func TestDocumentedChunkedUpload(t *testing.T) {
	data, body, r := documentedChunkedUpload()
	req, err := exampleVerifier(exampleTime).Verify(r)
	if err != nil {
		t.Fatalf("documented seed signature refused: %v", err)
	}
	got := readBody(t, req, r)
	if !bytes.Equal(got, data) {
		t.Fatalf("decoded %d bytes, want the %d of the example", len(got), len(data))
	}
	// a body altered in its second chunk fails at that chunk
	altered := bytes.Replace(body.Bytes(), []byte("aaaa\r\n0;"), []byte("aaab\r\n0;"), 1)
	r.Body = io.NopCloser(bytes.NewReader(altered))
	b, err := req.Body(r)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadAll(b); !errors.Is(err, ErrSignature) {
		t.Fatalf("an altered chunk: %v", err)
	}
	// bytes after the final chunk are no part of the signed stream
	r.Body = io.NopCloser(io.MultiReader(bytes.NewReader(body.Bytes()), strings.NewReader("smuggled")))
	if b, err = req.Body(r); err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadAll(b); !errors.Is(err, ErrMalformed) {
		t.Fatalf("bytes after the final chunk: %v, want ErrMalformed", err)
	}
}

func readBody(t *testing.T, req *Request, r *http.Request) []byte {
	t.Helper()
	b, err := req.Body(r)
	if err != nil {
		t.Fatal(err)
	}
	out, err := io.ReadAll(b)
	if err != nil {
		t.Fatalf("reading the body: %v", err)
	}
	return out
}

// Requests signed by aws-sdk-go-v2's signer verify, with keys, paths and
// queries that need encoding; altering anything signed fails, a payload
// that does not match its hash fails when read, and a request too far
// from the clock is refused.
func TestSDKSigner(t *testing.T) {
	now := time.Now().UTC().Truncate(time.Second)
	v := &Verifier{Region: "eu-west-1", Now: func() time.Time { return now },
		Secrets: func(id string) (string, bool) { return "s3cr3t", id == "AKID" }}
	// as S3 clients sign: the path as it is sent, not escaped again
	signer := v4.NewSigner(func(o *v4.SignerOptions) { o.DisableURIPathEscaping = true })
	creds := aws.Credentials{AccessKeyID: "AKID", SecretAccessKey: "s3cr3t"}
	sign := func(method, target string, body []byte, at time.Time) *http.Request {
		r := httptest.NewRequest(method, target, bytes.NewReader(body))
		sum := sha256.Sum256(body)
		hash := hex.EncodeToString(sum[:])
		r.Header.Set("X-Amz-Content-Sha256", hash)
		if err := signer.SignHTTP(context.Background(), creds, r, hash, "s3", "eu-west-1", at); err != nil {
			t.Fatal(err)
		}
		return r
	}
	for _, target := range []string{
		"http://127.0.0.1:9000/bucket/a%20b/c%2Bd/%E6%BC%A2.txt~",
		"http://127.0.0.1:9000/bucket/?list-type=2&prefix=a%2Fb&delimiter=%2F&start-after=x+y",
		"http://127.0.0.1:9000/bucket/k?partNumber=2&uploadId=abc%3D%3D",
	} {
		r := sign("PUT", target, []byte("hello"), now)
		req, err := v.Verify(r)
		if err != nil {
			t.Fatalf("%s: %v", target, err)
		}
		if got := readBody(t, req, r); string(got) != "hello" {
			t.Fatalf("%s: body %q", target, got)
		}
	}
	r := sign("PUT", "http://127.0.0.1:9000/bucket/k", []byte("hello"), now)
	r.Body = io.NopCloser(strings.NewReader("jello"))
	req, err := v.Verify(r)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := req.Body(r)
	if _, err := io.ReadAll(b); !errors.Is(err, ErrPayloadMismatch) {
		t.Fatalf("a body altered under its signed hash: %v", err)
	}
	if _, err := v.Verify(sign("GET", "http://127.0.0.1:9000/bucket/k", nil, now.Add(-16*time.Minute))); !errors.Is(err, ErrSkewed) {
		t.Fatalf("a request 16 minutes old: %v", err)
	}
	wrong := &Verifier{Region: "us-east-1", Now: v.Now, Secrets: v.Secrets}
	_, err = wrong.Verify(sign("GET", "http://127.0.0.1:9000/bucket/k", nil, now))
	if want := `The authorization header is malformed; the region "eu-west-1" is wrong; expecting "us-east-1"`; !errors.Is(err, ErrMalformed) || err.Error() != want {
		t.Fatalf("the wrong region: %v", err)
	}
	other := &Verifier{Region: "eu-west-1", Now: v.Now, Secrets: func(string) (string, bool) { return "other", true }}
	if _, err := other.Verify(sign("GET", "http://127.0.0.1:9000/bucket/k", nil, now)); !errors.Is(err, ErrSignature) {
		t.Fatalf("the wrong secret: %v", err)
	}
	// presigned by the SDK
	pr := httptest.NewRequest("GET", "http://127.0.0.1:9000/bucket/k?X-Amz-Expires=60", nil)
	u, _, err := signer.PresignHTTP(context.Background(), creds, pr, UnsignedPayload, "s3", "eu-west-1", now)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := v.Verify(httptest.NewRequest("GET", u, nil)); err != nil {
		t.Fatalf("SDK presigned URL: %v", err)
	}
}

// CRC-64/NVME, the newest S3 checksum, has the catalogue's check value.
func TestCRC64NVME(t *testing.T) {
	h := newChecksum("x-amz-checksum-crc64nvme")
	h.Write([]byte("123456789"))
	if got := hex.EncodeToString(h.Sum(nil)); got != "ae8b14860a799888" {
		t.Fatalf("crc64nvme(123456789) = %s", got)
	}
}

// Malformed authorizations are refused with S3's own texts, which clients
// show and their test suites compare (texts as AWS S3 answers them).
func TestMalformedTexts(t *testing.T) {
	v := &Verifier{Region: "us-east-1", Now: time.Now, Secrets: func(string) (string, bool) { return "s", true }}
	header := func(auth string) *http.Request {
		r := httptest.NewRequest("GET", "http://127.0.0.1:9000/bucket/k", nil)
		r.Header.Set("Authorization", auth)
		r.Header.Set("X-Amz-Content-Sha256", UnsignedPayload)
		r.Header.Set("X-Amz-Date", time.Now().UTC().Format(timeFormat))
		return r
	}
	const lead = "The authorization header is malformed; "
	for _, c := range []struct{ auth, want string }{
		{"AWS4-HMAC-SHA256 Credential=k/20250101/us-east-1/s3/aws4_request, SignedHeaders=host", lead + "the authorization header requires three components: Credential, SignedHeaders, and Signature."},
		{"AWS4-HMAC-SHA256 Credential=k/20250101/us-east-1/s3/aws4_request, SignedHeaders-host, Signature=ab", lead + `the authorization component "SignedHeaders-host" is malformed.`},
		{"AWS4-HMAC-SHA256 Credential=, SignedHeaders=host, Signature=ab", lead + "missing Credential."},
		{"AWS4-HMAC-SHA256 Credential=k/20250101/us-east-1/s3/aws4_request, SignedHeaders=, Signature=ab", lead + "missing SignedHeaders."},
		{"AWS4-HMAC-SHA256 Credential=k/2025/us-east-1/s3/aws4_request/x, SignedHeaders=host, Signature=ab", lead + `the Credential is mal-formed; expecting "<YOUR-AKID>/YYYYMMDD/REGION/SERVICE/aws4_request".`},
		{"AWS4-HMAC-SHA256 Credential=k/2025/us-east-1/ec2/aws4_request, SignedHeaders=host, Signature=ab", lead + `incorrect service "ec2". This endpoint belongs to "s3".`},
		{"AWS4-HMAC-SHA256 Credential=k/2025/us-east-1/s3/aws_request, SignedHeaders=host, Signature=ab", lead + `incorrect terminal "aws_request". This endpoint uses "aws4_request".`},
		{"AWS4-HMAC-SHA256 Credential=k/3223423234/us-east-1/s3/aws4_request, SignedHeaders=host, Signature=ab", lead + `incorrect date format "3223423234". This date in the credential must be in the format "yyyyMMdd".`},
	} {
		_, err := v.Verify(header(c.auth))
		var m *Malformed
		if !errors.As(err, &m) || m.Query || err.Error() != c.want {
			t.Errorf("%s:\n got %v\nwant %s", c.auth, err, c.want)
		}
	}
	r := header("AWS4-HMAC-SHA256 Credential=k/20250101/us-east-1/s3/aws4_request, SignedHeaders=host;x-amz-content-sha256;x-amz-date, Signature=ab")
	r.Header.Set("X-Amz-Date", "03032006")
	if _, err := v.Verify(r); !errors.Is(err, ErrDate) {
		t.Errorf("an invalid X-Amz-Date: %v", err)
	}
	q := httptest.NewRequest("GET", "http://127.0.0.1:9000/bucket/k?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=k%2F20250101%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Date=20250101T000000Z&X-Amz-SignedHeaders=host&X-Amz-Expires=60", nil)
	_, err := v.Verify(q)
	if m := (*Malformed)(nil); !errors.As(err, &m) || !m.Query || !strings.HasPrefix(m.Text, "Query-string authentication version 4 requires") {
		t.Errorf("a presigned URL without X-Amz-Signature: %v", err)
	}
}

// Signed finds a presigned URL's parameter without parsing the query, and
// is not fooled by the name elsewhere in it.
func TestSigned(t *testing.T) {
	for u, want := range map[string]bool{
		"http://h/b/k?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=x": true,
		"http://h/b/k?versionId=1&X-Amz-Algorithm=AWS4-HMAC-SHA256":        true,
		"http://h/b?list-type=2&prefix=X-Amz-Algorithm=":                   false,
		"http://h/b?prefix=a%26X-Amz-Algorithm%3D":                         false,
		"http://h/b/k": false,
	} {
		if got := Signed(httptest.NewRequest("GET", u, nil)); got != want {
			t.Errorf("Signed(%s) = %v, want %v", u, got, want)
		}
	}
}

// documentedChunkedUpload is AWS's example of an aws-chunked upload: the
// data (66560 bytes of "a"), its body in chunks of 64 KiB, 1 KiB and 0,
// each signed, and the request with the seed signature.
func documentedChunkedUpload() (data []byte, body *bytes.Buffer, r *http.Request) {
	data = bytes.Repeat([]byte("a"), 66560)
	sigs := []string{"ad80c730a21e5b8d04586a2213dd63b9a0e99e0e2307b0ade35a65485a288648",
		"0055627c9e194cb4542bae2aa5492e3c1575bbb81b612b7d234b86a503ef5497",
		"b6c6ea8a5354eaf15b3cb7646744f4275b71ea724fed81ceb9323e279d449df9"}
	body = &bytes.Buffer{}
	for i, chunk := range [][]byte{data[:65536], data[65536:], nil} {
		fmt.Fprintf(body, "%x;chunk-signature=%s\r\n", len(chunk), sigs[i])
		body.Write(chunk)
		body.WriteString("\r\n")
	}
	r = httptest.NewRequest("PUT", "http://s3.amazonaws.com/examplebucket/chunkObject.txt", bytes.NewReader(body.Bytes()))
	r.Host = "s3.amazonaws.com"
	for k, v := range map[string]string{
		"X-Amz-Date": "20130524T000000Z", "X-Amz-Storage-Class": "REDUCED_REDUNDANCY",
		"X-Amz-Content-Sha256": StreamingPayload, "Content-Encoding": "aws-chunked",
		"X-Amz-Decoded-Content-Length": "66560", "Content-Length": "66824",
		"Authorization": "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request,SignedHeaders=content-encoding;content-length;host;x-amz-content-sha256;x-amz-date;x-amz-decoded-content-length;x-amz-storage-class,Signature=4f232c4386841ef735655705268965c44a0e4690baa4adea153f7db9fa80a0a9",
	} {
		r.Header.Set(k, v)
	}
	r.ContentLength = 66824
	return data, body, r
}
