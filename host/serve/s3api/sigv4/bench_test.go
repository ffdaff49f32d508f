package sigv4

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
)

// The verification of a small signed GET alone, as the S3 API makes it
// for every request: the header form (as SDKs and the CLI sign) and the
// presigned form (a URL handed out), each with the query parsed the way
// the gateway parses it, once per request.
//
//	go test -run '^$' -bench Verify -benchmem ./host/serve/s3api/sigv4
func BenchmarkVerify(b *testing.B) {
	v, header, presigned := sdkRequests(b)
	for _, c := range []struct {
		name string
		r    *http.Request
	}{{"header", header}, {"presigned", presigned}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := v.VerifyQuery(c.r, c.r.URL.Query()); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// sdkRequests are a small GET signed as SDKs sign it, in the header (the
// SDK's own headers among those signed) and presigned, and a verifier
// that knows their key.
func sdkRequests(t testing.TB) (v *Verifier, header, presigned *http.Request) {
	now := time.Now().UTC().Truncate(time.Second)
	v = &Verifier{Region: "us-east-1", Now: func() time.Time { return now },
		Secrets: func(id string) (string, bool) { return "bench-secret", id == "BENCH" }}
	creds := aws.Credentials{AccessKeyID: "BENCH", SecretAccessKey: "bench-secret"}
	signer := v4.NewSigner(func(o *v4.SignerOptions) { o.DisableURIPathEscaping = true })

	header = httptest.NewRequest(http.MethodGet, "http://127.0.0.1:9000/small/k17", nil)
	header.Header.Set("X-Amz-Content-Sha256", emptySHA256)
	header.Header.Set("Amz-Sdk-Invocation-Id", "4a7c1f7e-0e1b-4b5e-9a7e-3f1b2c3d4e5f")
	header.Header.Set("Amz-Sdk-Request", "attempt=1; max=3")
	header.Header.Set("User-Agent", "aws-sdk-go-v2/1.30.0 os/linux lang/go#1.26 md/GOOS#linux md/GOARCH#amd64 api/s3#1.58.0")
	if err := signer.SignHTTP(context.Background(), creds, header, emptySHA256, "s3", "us-east-1", now); err != nil {
		t.Fatal(err)
	}
	pr := httptest.NewRequest(http.MethodGet, "http://127.0.0.1:9000/small/k17?X-Amz-Expires=3600&x-id=GetObject", nil)
	u, _, err := signer.PresignHTTP(context.Background(), creds, pr, UnsignedPayload, "s3", "us-east-1", now)
	if err != nil {
		t.Fatal(err)
	}
	return v, header, httptest.NewRequest(http.MethodGet, u, nil)
}
