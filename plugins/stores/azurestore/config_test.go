package azurestore

import (
	"net/url"
	"strings"
	"testing"

	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/plugins/stores/internal/schematest"
	"github.com/zarrgw/zarrgw/tests/support/servers"
)

func TestSchema(t *testing.T) {
	schematest.Check(t, Schema, Config{}, "account_key", "sas_token", "connection_string")
}

func TestConfigErrors(t *testing.T) {
	for _, c := range []struct{ raw, want string }{
		{`{}`, "container is required"},
		{`{"container":"a/b"}`, "not a container name"},
		{`{"container":"c","account_key":"hunter2","sas_token":"sig=hunter2"}`, "give one of"},
		{`{"container":"c","nope":1}`, "unknown field"},
	} {
		_, err := ParseConfig([]byte(c.raw))
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "hunter2") {
			t.Errorf("ParseConfig(%s): %v, want an error about %q", c.raw, err, c.want)
		}
	}
	t.Setenv(EnvConnectionString, "")
	t.Setenv(EnvAccount, "")
	if _, err := New(t.Context(), Config{Container: "c"}); err == nil || !strings.Contains(err.Error(), EnvConnectionString) {
		t.Errorf("New without credentials: %v, want the variables to set", err)
	}
	if _, err := New(t.Context(), Config{Container: "c", ConnectionString: "AccountKey=hunter2;garbage"}); err == nil || strings.Contains(err.Error(), "hunter2") {
		t.Errorf("New with a bad connection string: %v", err)
	}
	cfg, err := ConfigFromURL("az://era5/data.zarr")
	if err != nil || cfg.Container != "era5" || cfg.Prefix != "data.zarr" {
		t.Errorf("ConfigFromURL: %+v, %v", cfg, err)
	}
	if _, err := ConfigFromURL("az://c/p?sig=hunter2"); err == nil || strings.Contains(err.Error(), "hunter2") {
		t.Errorf("ConfigFromURL with a query: %v", err)
	}
}

// az://container/prefix opens with nothing but
// AZURE_STORAGE_CONNECTION_STRING.
func TestFromURLWithEnvironment(t *testing.T) {
	srv := servers.StartAzure(t)
	c := srv.NewContainer(t)
	t.Setenv(EnvConnectionString, srv.ConnectionString())
	// as a LOCATION opens: the registration's FromURL, then New
	cfg, err := Registration.FromURL(&url.URL{Scheme: "az", Host: c, Path: "/data.zarr"})
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
	whole := newTestStore(t, Config{Container: c, ConnectionString: srv.ConnectionString()})
	if v, err := whole.Get(t.Context(), "data.zarr/zarr.json", store.ByteRange{}); err != nil || string(v.Data) != "{}" {
		t.Fatalf("the key under the URL's prefix: %q, %v", v.Data, err)
	}
}

// EraseMany deletes every key given; missing keys are no error.
func TestEraseMany(t *testing.T) {
	srv := servers.StartAzure(t)
	s := newTestStore(t, testConfig(t, srv))
	for _, key := range []string{"a", "b/c", "kept"} {
		if _, err := s.Set(t.Context(), key, []byte(key), store.Condition{}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.EraseMany(t.Context(), []string{"a", "b/c", "missing"}); err != nil {
		t.Fatal(err)
	}
	left, err := store.ListAll(t.Context(), s, "")
	if err != nil || len(left) != 1 || left[0] != "kept" {
		t.Fatalf("after EraseMany: %q, %v", left, err)
	}
}
