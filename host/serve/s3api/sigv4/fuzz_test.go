package sigv4

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

// Any Authorization header, date and query: Verify never panics, and
// never accepts a request but AWS's documented examples (the fuzzer does
// not know the secret, so any other accepted request is a forgery).
func FuzzVerify(f *testing.F) {
	// AWS's documented signatures: the only inputs that may be accepted
	documented := map[[4]string]bool{
		{"AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request,SignedHeaders=host;range;x-amz-content-sha256;x-amz-date,Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41",
			"20130524T000000Z", "", emptySHA256}: true,
		{"", "", "X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20130524%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Date=20130524T000000Z&X-Amz-Expires=86400&X-Amz-SignedHeaders=host&X-Amz-Signature=aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404", ""}: true,
	}
	for in := range documented {
		f.Add(in[0], in[1], in[2], in[3])
	}
	f.Add("AWS4-HMAC-SHA256 Credential=A/2/r/s3/aws4_request, SignedHeaders=, Signature=", "x", "X-Amz-Expires=-1", "STREAMING-AWS4-HMAC-SHA256-PAYLOAD")
	v := exampleVerifier(exampleTime)
	f.Fuzz(func(t *testing.T, auth, date, query, payload string) {
		if strings.ContainsAny(auth+date+payload, "\r\n") {
			return // not a header value
		}
		r := httptest.NewRequest(http.MethodGet, "http://examplebucket.s3.amazonaws.com/test.txt", nil)
		r.URL.RawQuery = query
		r.Header.Set("Authorization", auth)
		r.Header.Set("X-Amz-Date", date)
		r.Header.Set("X-Amz-Content-Sha256", payload)
		r.Header.Set("Range", "bytes=0-9")
		q, err := url.ParseQuery(query)
		if err != nil {
			return
		}
		req, err := v.VerifyQuery(r, q)
		if err == nil && !documented[[4]string{auth, date, query, payload}] {
			t.Fatalf("a request the fuzzer signed without the secret was accepted: %+v", req.Credential)
		}
	})
}

// Any aws-chunked body behind the documented upload's valid headers: the
// decoder never panics, and what it decodes without an error is the
// documented data (the chunk signatures chain to the seed signature, so
// any other body must fail).
func FuzzChunkedBody(f *testing.F) {
	data, body, r := documentedChunkedUpload()
	f.Add(body.Bytes())
	f.Add([]byte("0;chunk-signature=b6c6\r\n\r\n"))
	f.Add([]byte("fffffffffffffff;chunk-signature=00\r\n"))
	req, err := exampleVerifier(exampleTime).Verify(r)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		r.Body = io.NopCloser(bytes.NewReader(in))
		b, err := req.Body(r)
		if err != nil {
			return
		}
		out, err := io.ReadAll(io.LimitReader(b, 1<<20))
		if err == nil && !bytes.Equal(out, data) {
			t.Fatalf("a body other than the signed one decoded without error: %d bytes", len(out))
		}
		if err != nil && !errors.Is(err, ErrMalformed) && !errors.Is(err, ErrSignature) && !errors.Is(err, ErrChecksum) {
			t.Fatalf("an error of no known kind: %v", err)
		}
	})
}
