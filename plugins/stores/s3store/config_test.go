package s3store

import (
	"bytes"
	"encoding/pem"
	"fmt"
	nethttp "net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/plugins/stores/internal/schematest"
	"github.com/zarrgw/zarrgw/tests/support/servers"
)

func TestSchema(t *testing.T) {
	schematest.Check(t, Schema, Config{}, "secret_access_key", "session_token")
}

func TestConfigErrors(t *testing.T) {
	for _, c := range []struct{ raw, want string }{
		{`{}`, "bucket is required"},
		{`{"bucket":"a/b"}`, "not a bucket name"},
		{`{"bucket":"b","part_size":1024}`, "below S3's minimum"},
		{`{"bucket":"b","access_key_id":"AKIA"}`, "without secret_access_key"},
		{`{"bucket":"b","secret_access_key":"hunter2"}`, "without access_key_id"},
		{`{"bucket":"b","nope":1}`, "unknown field"},
	} {
		_, err := ParseConfig([]byte(c.raw))
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "hunter2") {
			t.Errorf("ParseConfig(%s): %v, want an error about %q", c.raw, err, c.want)
		}
	}
	for _, loc := range []string{"s3:/b", "s3://", "gs://b/p", "s3://id:secret@b/p", "s3://b/p?x=1"} {
		if _, err := ConfigFromURL(loc); err == nil || strings.Contains(err.Error(), "secret") {
			t.Errorf("ConfigFromURL(%q): %v", loc, err)
		}
	}
	cfg, err := ConfigFromURL("s3://bucket/data.zarr/")
	if err != nil || cfg.Bucket != "bucket" || cfg.Prefix != "data.zarr" {
		t.Errorf("ConfigFromURL: %+v, %v", cfg, err)
	}
}

// s3://bucket/prefix opens with nothing but the SDK's conventional
// environment; a custom endpoint turns path-style addressing on.
func TestFromURLWithEnvironment(t *testing.T) {
	srv := servers.StartS3(t)
	bucket := srv.NewBucket(t)
	t.Setenv("AWS_ACCESS_KEY_ID", srv.AccessKey)
	t.Setenv("AWS_SECRET_ACCESS_KEY", srv.SecretKey)
	t.Setenv("AWS_REGION", srv.Region)
	t.Setenv("AWS_ENDPOINT_URL_S3", srv.Endpoint)
	t.Setenv("AWS_CONFIG_FILE", "/nonexistent")
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", "/nonexistent")
	// as a LOCATION opens: the registration's FromURL, then New
	cfg, err := Registration.FromURL(&url.URL{Scheme: "s3", Host: bucket, Path: "/data.zarr"})
	if err != nil {
		t.Fatal(err)
	}
	s, err := Registration.New(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Set(t.Context(), "zarr.json", []byte("{}"), store.Condition{}); err != nil {
		t.Fatal(err)
	}
	whole := newTestStore(t, testConfig(t, srv))
	whole.bucket = bucket
	if v, err := whole.Get(t.Context(), "data.zarr/zarr.json", store.ByteRange{}); err != nil || string(v.Data) != "{}" {
		t.Fatalf("the key under the URL's prefix: %q, %v", v.Data, err)
	}
}

// EraseMany deletes in batches of 1000 keys; missing keys are no error.
func TestEraseMany(t *testing.T) {
	srv := servers.StartS3(t)
	s := newTestStore(t, testConfig(t, srv))
	var keys []string
	for i := range 2100 {
		keys = append(keys, fmt.Sprintf("k/%04d", i))
	}
	for _, key := range keys[:50] {
		if _, err := s.Set(t.Context(), key, []byte(key), store.Condition{}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Set(t.Context(), "kept", []byte("x"), store.Condition{}); err != nil {
		t.Fatal(err)
	}
	if err := s.EraseMany(t.Context(), append(keys, keys[1999:2001]...)); err != nil {
		t.Fatal(err)
	}
	left, err := store.ListAll(t.Context(), s, "")
	if err != nil || len(left) != 1 || left[0] != "kept" {
		t.Fatalf("after EraseMany: %q, %v", left, err)
	}
	if err := s.EraseMany(t.Context(), []string{"ok", "../escape"}); err == nil || !bytes.Contains([]byte(err.Error()), []byte("invalid key")) {
		t.Fatalf("EraseMany with an invalid key: %v", err)
	}
}

// AWS_CA_BUNDLE makes the SDK add a CA to the store's HTTP transport: the
// store must keep a client the SDK can do that to.
func TestCABundle(t *testing.T) {
	tls := httptest.NewTLSServer(nethttp.NotFoundHandler())
	defer tls.Close()
	bundle := filepath.Join(t.TempDir(), "ca.pem")
	pemCert := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: tls.Certificate().Raw})
	if err := os.WriteFile(bundle, pemCert, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("AWS_CA_BUNDLE", bundle)
	srv := servers.StartS3(t)
	s := newTestStore(t, testConfig(t, srv))
	if _, err := s.Set(t.Context(), "k", []byte("v"), store.Condition{}); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
}
