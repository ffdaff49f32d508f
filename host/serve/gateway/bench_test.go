package gateway_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"

	"github.com/zarrgw/zarrgw/host/runtime/config"
	"github.com/zarrgw/zarrgw/host/runtime/registry"
	"github.com/zarrgw/zarrgw/host/runtime/stack"
	"github.com/zarrgw/zarrgw/host/serve/gateway"
)

// A GET of a 4 KiB value through the handler alone (no network): the
// gateway's own cost per small read, allocations included.
//
//	go test -run '^$' -bench SmallGet -benchmem ./host/serve/gateway
func BenchmarkSmallGet(b *testing.B) {
	g := smallGateway(b, "")
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			w := httptest.NewRecorder()
			r := httptest.NewRequest(http.MethodGet, fmt.Sprintf("/d/small/k%d", i%100), nil)
			g.ServeHTTP(w, r)
			if w.Code != 200 || !strings.HasPrefix(w.Header().Get("ETag"), `"`) {
				b.Fatalf("%d", w.Code)
			}
			i++
		}
	})
}

// smallGateway serves 100 values of 4 KiB in the read-only dataset
// "small", with server settings extra.
func smallGateway(b *testing.B, extra string) *gateway.Gateway {
	root := b.TempDir()
	os.MkdirAll(filepath.Join(root, "small"), 0o755)
	for i := 0; i < 100; i++ {
		os.WriteFile(filepath.Join(root, "small", fmt.Sprintf("k%d", i)), make([]byte, 4096), 0o644)
	}
	cfg, diags := config.Parse([]byte(`store "fs" "b" {
  root = "`+root+`"
}
variable "secret" {
  default = "bench-secret"
}
principal "bench" {
  s3_access_key_id     = "BENCH"
  s3_secret_access_key = var.secret
}
dataset "small" {
  store     = store.fs.b
  prefix    = "small"
  read_only = true
}
`+extra), "/tmp/b.hcl", registry.Bundled().Catalog())
	if diags.HasErrors() {
		b.Fatal(diags.Error())
	}
	host, err := stack.Start(cfg, registry.Bundled(), slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { host.Close() })
	// as zarrgw serve runs it: the access log written by the gateway's own encoder
	g, err := gateway.New(context.Background(), cfg, host, gateway.Options{
		Logger: slog.New(slog.NewJSONHandler(io.Discard, nil)), AccessLog: io.Discard})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(g.Close)
	return g
}

// The same GET through the S3 API, signed (the signature checked on every
// request) and anonymous: the S3 dialect's cost over the key API's.
//
//	go test -run '^$' -bench 'SmallGet' -benchmem ./host/serve/gateway
func BenchmarkS3SmallGet(b *testing.B) {
	g := smallGateway(b, `server {
  listen = "127.0.0.1:0"
  s3 {
    listen = "127.0.0.1:0"
  }
}`)
	h := g.S3Handler()
	signed := make([]http.Header, 100)
	presigned := make([]string, 100)
	for i := range signed {
		r := httptest.NewRequest(http.MethodGet, fmt.Sprintf("http://127.0.0.1:9000/small/k%d", i), nil)
		r.Header.Set("X-Amz-Content-Sha256", emptySHA256)
		creds := aws.Credentials{AccessKeyID: "BENCH", SecretAccessKey: "bench-secret"}
		if err := v4.NewSigner().SignHTTP(context.Background(), creds, r, emptySHA256, "s3", "us-east-1", time.Now()); err != nil {
			b.Fatal(err)
		}
		signed[i] = r.Header
		pr := httptest.NewRequest(http.MethodGet, fmt.Sprintf("http://127.0.0.1:9000/small/k%d?X-Amz-Expires=3600", i), nil)
		u, _, err := v4.NewSigner().PresignHTTP(context.Background(), creds, pr, "UNSIGNED-PAYLOAD", "s3", "us-east-1", time.Now())
		if err != nil {
			b.Fatal(err)
		}
		presigned[i] = u
	}
	for _, mode := range []string{"signed", "presigned", "anonymous"} {
		b.Run(mode, func(b *testing.B) {
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				i := 0
				for pb.Next() {
					w := httptest.NewRecorder()
					u := fmt.Sprintf("http://127.0.0.1:9000/small/k%d", i%100)
					if mode == "presigned" {
						u = presigned[i%100]
					}
					r := httptest.NewRequest(http.MethodGet, u, nil)
					if mode == "signed" {
						r.Header = signed[i%100].Clone()
					}
					h.ServeHTTP(w, r)
					if w.Code != 200 || w.Body.Len() != 4096 {
						b.Fatalf("%d %s", w.Code, w.Body)
					}
					i++
				}
			})
		})
	}
}

const emptySHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
