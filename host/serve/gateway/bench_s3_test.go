package gateway_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
)

// A GET of a 4 KiB value through the handlers alone (no network), each
// face in the same loop: the key API, the S3 API unsigned (an open
// bucket), signed in the Authorization header as SDKs sign (the
// SDK's headers among the signed ones), and presigned. The requests are
// signed before the clock starts; the server verifies every one. Each
// request is made the same way in every case (a new *http.Request, the
// signed headers shared read-only), so the differences are the faces'.
//
//	go test -run '^$' -bench S3SignedGet -benchmem ./host/serve/gateway
func BenchmarkS3SignedGet(b *testing.B) {
	g := smallGateway(b, `server {
  listen = "127.0.0.1:0"
  s3 {
    listen = "127.0.0.1:0"
  }
}
dataset "open" {
  store     = store.fs.b
  prefix    = "small"
  read_only = true
  access {
    read = ["*"]
  }
}`)
	s3h := g.S3Handler()
	now := time.Now()
	creds := aws.Credentials{AccessKeyID: "BENCH", SecretAccessKey: "bench-secret"}
	signer := v4.NewSigner(func(o *v4.SignerOptions) { o.DisableURIPathEscaping = true })
	headers := make([]http.Header, 100)
	presigned := make([]string, 100)
	for i := range headers {
		r := httptest.NewRequest(http.MethodGet, fmt.Sprintf("http://127.0.0.1:9000/small/k%d", i), nil)
		r.Header.Set("X-Amz-Content-Sha256", emptySHA256)
		r.Header.Set("Amz-Sdk-Invocation-Id", fmt.Sprintf("4a7c1f7e-0e1b-4b5e-9a7e-3f1b2c3d%04d", i))
		r.Header.Set("Amz-Sdk-Request", "attempt=1; max=3")
		r.Header.Set("User-Agent", "aws-sdk-go-v2/1.30.0 os/linux lang/go#1.26 md/GOOS#linux md/GOARCH#amd64 api/s3#1.58.0")
		if err := signer.SignHTTP(context.Background(), creds, r, emptySHA256, "s3", "us-east-1", now); err != nil {
			b.Fatal(err)
		}
		headers[i] = r.Header
		pr := httptest.NewRequest(http.MethodGet, fmt.Sprintf("http://127.0.0.1:9000/small/k%d?X-Amz-Expires=3600&x-id=GetObject", i), nil)
		u, _, err := signer.PresignHTTP(context.Background(), creds, pr, "UNSIGNED-PAYLOAD", "s3", "us-east-1", now)
		if err != nil {
			b.Fatal(err)
		}
		presigned[i] = u
	}
	cases := []struct {
		name    string
		h       http.Handler
		url     func(i int) string
		headers []http.Header
	}{
		{"key-api", g, func(i int) string { return fmt.Sprintf("/d/small/k%d", i) }, nil},
		{"s3-unsigned", s3h, func(i int) string { return fmt.Sprintf("http://127.0.0.1:9000/open/k%d", i) }, nil},
		{"s3-header", s3h, func(i int) string { return fmt.Sprintf("http://127.0.0.1:9000/small/k%d", i) }, headers},
		{"s3-presigned", s3h, func(i int) string { return presigned[i] }, nil},
	}
	for _, c := range cases {
		urls := make([]string, 100)
		for i := range urls {
			urls[i] = c.url(i)
		}
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				i := 0
				for pb.Next() {
					w := httptest.NewRecorder()
					r := httptest.NewRequest(http.MethodGet, urls[i%100], nil)
					if c.headers != nil {
						r.Header = c.headers[i%100]
					}
					c.h.ServeHTTP(w, r)
					if w.Code != 200 || w.Body.Len() != 4096 {
						b.Fatalf("%s: %d %s", c.name, w.Code, w.Body)
					}
					i++
				}
			})
		})
	}
}
