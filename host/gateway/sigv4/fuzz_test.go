package sigv4

import (
	"bytes"
	"errors"
	"fmt"
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
	data := bytes.Repeat([]byte("a"), 66560)
	sigs := []string{"ad80c730a21e5b8d04586a2213dd63b9a0e99e0e2307b0ade35a65485a288648",
		"0055627c9e194cb4542bae2aa5492e3c1575bbb81b612b7d234b86a503ef5497",
		"b6c6ea8a5354eaf15b3cb7646744f4275b71ea724fed81ceb9323e279d449df9"}
	var body bytes.Buffer
	for i, chunk := range [][]byte{data[:65536], data[65536:], nil} {
		fmt.Fprintf(&body, "%x;chunk-signature=%s\r\n", len(chunk), sigs[i])
		body.Write(chunk)
		body.WriteString("\r\n")
	}
	f.Add(body.Bytes())
	f.Add([]byte("0;chunk-signature=b6c6\r\n\r\n"))
	f.Add([]byte("fffffffffffffff;chunk-signature=00\r\n"))
	r := httptest.NewRequest("PUT", "http://s3.amazonaws.com/examplebucket/chunkObject.txt", nil)
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
