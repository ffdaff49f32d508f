package gateway_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/zarrgw/zarrgw/host/runtime/config"
	"github.com/zarrgw/zarrgw/host/runtime/registry"
	"github.com/zarrgw/zarrgw/host/runtime/stack"
	"github.com/zarrgw/zarrgw/host/serve/gateway"
)

// S3 credentials of the test principals (the secrets come from variables,
// as the configuration requires).
const (
	writerKeyID  = "WRITERKEYID"
	writerSecret = "writer-s3-secret"
	readerKeyID  = "READERKEYID"
	readerSecret = "reader-s3-secret"
)

// s3Config declares an fs store in ROOT, principals with S3 credentials,
// the test datasets and the S3 listener, which makes buckets below
// ROOT/made for the writer.
const s3Config = `
variable "writer_secret" {
  default = "writer-s3-secret"
}
variable "reader_secret" {
  default = "reader-s3-secret"
}
store "fs" "local" {
  root = "ROOT"
}
store "fs" "made" {
  root = "ROOT/made"
}
principal "writer" {
  token_sha256         = "ef80202ea99d7c668a9677d9242456057ac10488311cb8757674490e194a56e1"
  s3_access_key_id     = "WRITERKEYID"
  s3_secret_access_key = var.writer_secret
}
principal "reader" {
  s3_access_key_id     = "READERKEYID"
  s3_secret_access_key = var.reader_secret
}
` + testDatasets + `
server {
  listen           = "127.0.0.1:0"
  max_request_size = "MAXREQUEST"
  s3 {
    listen            = "127.0.0.1:0"
    region            = "eu-test-1"
    domain            = "s3.test"
    buckets_from      = "store.fs.made"
    S3EXTRA
    multipart_max_age = "MAXAGE"
    max_object_size   = "40MiB"
    bucket_access {
      read  = ["writer"]
      write = ["writer"]
    }
  }
}
`

// s3Gateway serves s3Config: the S3 API and the key API of one gateway.
type s3Gateway struct {
	s3   *httptest.Server
	keys *testGateway
	rec  *recorder
	root string
	g    *gateway.Gateway

	mu sync.Mutex
	// payloads counts the requests by their x-amz-content-sha256 (the
	// payload's hash, UNSIGNED-PAYLOAD or a STREAMING-... form).
	payloads map[string]int
}

// payloadSeen reports whether a request came with a payload form.
func (sg *s3Gateway) payloadSeen(form string) bool {
	sg.mu.Lock()
	defer sg.mu.Unlock()
	return sg.payloads[form] > 0
}

type s3Options struct {
	root       string               // reuse a root (a restart); a new one when ""
	maxAge     string               // multipart_max_age; "24h" when ""
	maxRequest string               // max_request_size; "16MiB" when ""
	s3Extra    string               // more attributes of the s3 block
	edit       func(*config.Config) // changes the parsed configuration, as validation would not allow
	log        io.Writer            // the access log; discarded when nil
}

// syncBuffer is a log destination safe for the server's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func newS3Gateway(t testing.TB, o s3Options) *s3Gateway {
	t.Helper()
	if o.root == "" {
		o.root = t.TempDir()
	}
	if o.maxAge == "" {
		o.maxAge = "24h"
	}
	if o.maxRequest == "" {
		o.maxRequest = "16MiB"
	}
	src := strings.NewReplacer("ROOT", o.root, "MAXAGE", o.maxAge, "MAXREQUEST", o.maxRequest, "S3EXTRA", o.s3Extra).Replace(s3Config)
	cfg, diags := config.Parse([]byte(src), "/etc/zarrgw/s3.hcl", registry.Bundled().Catalog())
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	if o.edit != nil {
		o.edit(cfg)
	}
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	host, err := stack.Start(cfg, registry.Bundled(), quiet)
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{}
	logger := quiet
	if o.log != nil {
		logger = slog.New(slog.NewJSONHandler(o.log, nil))
	}
	g, err := gateway.New(context.Background(), cfg, host, gateway.Options{Logger: logger, StoreHook: rec.hook})
	if err != nil {
		t.Fatal(err)
	}
	sg := &s3Gateway{rec: rec, root: o.root, g: g, payloads: map[string]int{}}
	// TLS, as SDKs send checksum trailers (aws-chunked bodies) over TLS only
	s3srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sg.mu.Lock()
		sg.payloads[r.Header.Get("X-Amz-Content-Sha256")]++

		sg.mu.Unlock()
		g.S3Handler().ServeHTTP(w, r)
	}))
	keys := httptest.NewServer(g)
	t.Cleanup(func() { s3srv.Close(); keys.Close(); g.Close(); host.Close() })
	sg.s3, sg.keys = s3srv, &testGateway{Server: keys, rec: rec, root: o.root}
	return sg
}

// client is an SDK client of the S3 API, signing as keyID, with the
// checksum settings LoadDefaultConfig gives (request checksums when
// supported, sent as trailers of aws-chunked bodies where the body cannot
// be read twice; responses checked when they carry one). LoadDefaultConfig
// itself is not used: it would read the machine's AWS settings.
func (sg *s3Gateway) client(keyID, secret string) *s3.Client {
	return s3.New(s3.Options{
		Region:                     "eu-test-1",
		BaseEndpoint:               aws.String(sg.s3.URL),
		UsePathStyle:               true,
		Credentials:                credentials.NewStaticCredentialsProvider(keyID, secret, ""),
		HTTPClient:                 sg.s3.Client(),
		RequestChecksumCalculation: aws.RequestChecksumCalculationWhenSupported,
		ResponseChecksumValidation: aws.ResponseChecksumValidationWhenSupported,
	})
}

func (sg *s3Gateway) writer() *s3.Client { return sg.client(writerKeyID, writerSecret) }
