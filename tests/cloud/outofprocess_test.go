package cloud

import (
	"encoding/json"
	"errors"
	"log/slog"
	"testing"
	"time"

	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/core/store/storetest"
	"github.com/zarrgw/zarrgw/host/runtime/launcher"
	"github.com/zarrgw/zarrgw/plugins/stores/azurestore"
	"github.com/zarrgw/zarrgw/plugins/stores/fsstore"
	"github.com/zarrgw/zarrgw/plugins/stores/httpstore"
	"github.com/zarrgw/zarrgw/plugins/stores/s3store"
	"github.com/zarrgw/zarrgw/tests/support/servers"
)

// newPlugin returns the cloud store plugin, launched on first use and
// ended when the test ends.
func newPlugin(t *testing.T) *launcher.Plugin {
	t.Helper()
	l := launcher.New(launcher.Options{
		Logger:       slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelWarn})),
		StartTimeout: time.Minute,
	})
	t.Cleanup(func() { l.Close() })
	sum, err := launcher.Checksum(pluginBin)
	if err != nil {
		t.Fatal(err)
	}
	p, err := l.Add(launcher.Spec{Name: "example.org/test/cloud", Path: pluginBin, SHA256: sum})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// testWriter sends the host's log to the test's.
type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(string(p))
	return len(p), nil
}

// remote opens a store of the plugin from a configuration.
func remote(t *testing.T, p *launcher.Plugin, name string, config any) store.Store {
	t.Helper()
	raw, err := json.Marshal(config)
	if err != nil {
		t.Fatal(err)
	}
	s, err := p.Store(t.Context(), name, raw)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// The s3 store passes the suite out of process against versitygw.
func TestS3OutOfProcess(t *testing.T) {
	srv := servers.StartS3(t)
	p := newPlugin(t)
	storetest.RunWith(t, storetest.Options{LargeValue: 2*s3store.MinPartSize + 123, VersionsFromContent: true},
		func(t *testing.T) store.Store { return remote(t, p, s3store.Name, s3Config(t, srv)) })
}

// The azure store passes the suite out of process against Azurite.
func TestAzureOutOfProcess(t *testing.T) {
	srv := servers.StartAzure(t)
	p := newPlugin(t)
	storetest.RunWith(t, storetest.Options{LargeValue: 5*azureBlock + 123},
		func(t *testing.T) store.Store { return remote(t, p, azurestore.Name, azureConfig(t, srv)) })
}

// The http store passes the suite's read checks out of process, in front
// of a directory an fs store writes.
func TestHTTPOutOfProcess(t *testing.T) {
	p := newPlugin(t)
	storetest.Run(t, func(t *testing.T) store.Store {
		dir := t.TempDir()
		w, err := fsstore.New(dir)
		if err != nil {
			t.Fatal(err)
		}
		srv := servers.ServeDir(t, dir, servers.HTTPOptions{})
		return storetest.ReadVia(w, remote(t, p, httpstore.Name, httpstore.Config{URL: srv.URL}))
	})
}

// azureBlock is the block size of the tests' azure stores: small, so that
// staged uploads happen at modest sizes.
const azureBlock = 64 << 10

func s3Config(t testing.TB, srv *servers.S3) s3store.Config {
	return s3store.Config{Bucket: srv.NewBucket(t), Endpoint: srv.Endpoint, Region: srv.Region,
		AccessKeyID: srv.AccessKey, SecretAccessKey: srv.SecretKey, PartSize: s3store.MinPartSize, ListPageSize: 100}
}

func azureConfig(t testing.TB, srv *servers.Azure) azurestore.Config {
	return azurestore.Config{Container: srv.NewContainer(t), ConnectionString: srv.ConnectionString(),
		BlockSize: azureBlock, ListPageSize: 100}
}

// A 403 on a key stays an error out of process, never a missing key:
// store.ErrAccessDenied crosses the process boundary.
func TestForbiddenOutOfProcess(t *testing.T) {
	srv := servers.StartS3(t)
	front := servers.NewFront(t, srv.Addr)
	cfg := s3Config(t, srv)
	cfg.Endpoint = front.URL
	s := remote(t, newPlugin(t), s3store.Name, cfg)
	if _, err := s.Set(t.Context(), "secret/k", []byte("v"), store.Condition{}); err != nil {
		t.Fatal(err)
	}
	front.OnPath("/secret/", servers.Answer{Status: 403, Body: `<Error><Code>AccessDenied</Code><Message>Access Denied</Message></Error>`})
	_, err := s.Get(t.Context(), "secret/k", store.ByteRange{})
	if !errors.Is(err, store.ErrAccessDenied) || errors.Is(err, store.ErrNotFound) {
		t.Fatalf("403 out of process: %v, want an access error", err)
	}
}
