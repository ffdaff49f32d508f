package config_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/zclconf/go-cty/cty"

	"github.com/zarrgw/zarrgw/core/extension"
	"github.com/zarrgw/zarrgw/host/runtime/config"
)

const validSrc = `
variable "endpoint" {
  default = "http://127.0.0.1:7070"
  env     = "TEST_ENDPOINT"
}
variable "secret" {
  env       = "TEST_SECRET"
  sensitive = true
}

plugin "example.org/acme/bitshave" {
  path   = "bin/bitshave"
  sha256 = "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
  args   = ["-v"]
  env    = { LOG_LEVEL = "info" }
}

dataset "era5" {
  store     = store.s3.raw
  prefix    = "era5.zarr/"
  read_only = false
  transformer "https://purl.org/zarr/spec/extensions/storage-transformers/sharding/1.0" {
    chunks_per_shard = [32, 2]
  }
  codec "bitshave" {
    bits = 3
  }
  codec "numcodecs.zstd" {
    level    = 9
    checksum = true
  }
  codec "nest" {
    codecs = [{ name = "bytes", configuration = { endian = "little" } }, { name = "crc32c" }]
  }
  access {
    read  = ["*"]
    write = ["ingest"]
  }
}

principal "ingest" {
  token_sha256 = "d6d21e6d4a9c969670e67b5ea4b746242a23ad9ec2e8eb78c8d36f577f00581e"
}

store "s3" "raw" {
  bucket            = "climate"
  endpoint          = var.endpoint
  secret_access_key = var.secret
}
store "fs" "local" {
  root = "/data"
}

dataset "local" {
  store     = "store.fs.local"
  read_only = true
}

server {
  listen            = ":9000"
  read_timeout      = "1m"
  max_request_size  = "64MiB"
  tls_cert_file     = "tls/cert.pem"
  tls_key_file      = "/etc/tls/key.pem"
  cors_origins      = ["https://example.org"]
  store_concurrency = 8
  metadata_cache    = 0
  chunk_cache       = "1GiB"
  cache_ttl         = "500ms"
}
`

func TestDecodeValid(t *testing.T) {
	env := map[string]string{"TEST_SECRET": "s3cr3t"}
	cfg := mustParse(t, validSrc, config.Options{LookupEnv: func(k string) (string, bool) { v, ok := env[k]; return v, ok }})

	if len(cfg.Variables) != 2 || cfg.Variables[0].Value != cty.StringVal("http://127.0.0.1:7070") || cfg.Variables[0].Env != "" ||
		cfg.Variables[1].Value != cty.StringVal("s3cr3t") || cfg.Variables[1].Env != "TEST_SECRET" || !cfg.Variables[1].Sensitive {
		t.Errorf("variables: %+v", cfg.Variables)
	}

	if len(cfg.Plugins) != 1 {
		t.Fatalf("plugins: %+v", cfg.Plugins)
	}
	p := cfg.Plugins[0]
	wantSum := "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	if p.Source != "example.org/acme/bitshave" || p.Path != "/etc/zarrgw/bin/bitshave" || p.SHA256 != wantSum ||
		p.PinnedBy != config.PinConfig || !reflect.DeepEqual(p.Args, []string{"-v"}) ||
		!reflect.DeepEqual(p.Env, map[string]string{"LOG_LEVEL": "info"}) || p.Name() != "bitshave" {
		t.Errorf("plugin: %+v", p)
	}

	wantStores := []struct {
		ref  config.StoreRef
		json string
	}{
		{config.StoreRef{Type: "s3", Name: "raw"}, `{"bucket":"climate","endpoint":"http://127.0.0.1:7070","secret_access_key":"s3cr3t"}`},
		{config.StoreRef{Type: "fs", Name: "local"}, `{"root":"/data"}`},
	}
	if len(cfg.Stores) != len(wantStores) {
		t.Fatalf("stores: %+v", cfg.Stores)
	}
	for i, w := range wantStores {
		s := cfg.Stores[i]
		if s.Ref != w.ref || string(s.Extension.Config) != w.json || !s.Extension.Checked || s.Extension.Kind != extension.Store {
			t.Errorf("store %d: %+v %s, want %v %s", i, s.Ref, s.Extension.Config, w.ref, w.json)
		}
	}
	if s, ok := cfg.Store(config.StoreRef{Type: "fs", Name: "local"}); !ok || s.Ref.String() != "store.fs.local" {
		t.Errorf("Store lookup: %v %v", s, ok)
	}

	if len(cfg.Datasets) != 2 {
		t.Fatalf("datasets: %+v", cfg.Datasets)
	}
	era5 := cfg.Datasets[0]
	if era5.Name != "era5" || era5.Store != (config.StoreRef{Type: "s3", Name: "raw"}) || era5.Prefix != "era5.zarr" || era5.ReadOnly ||
		!reflect.DeepEqual(era5.Access, config.Access{Read: []string{"*"}, Write: []string{"ingest"}}) {
		t.Errorf("era5: %+v", era5)
	}
	type ext struct {
		name, manifest, plugin, json string
		checked                      bool
	}
	var got []ext
	for _, e := range append(era5.Transformers, era5.Codecs...) {
		got = append(got, ext{e.Name, e.Manifest.Name, e.Plugin, string(e.Config), e.Checked})
	}
	want := []ext{
		{"https://purl.org/zarr/spec/extensions/storage-transformers/sharding/1.0", "sharding", "", `{"chunks_per_shard":[32,2]}`, true},
		{"bitshave", "bitshave", "example.org/acme/bitshave", `{"bits":3}`, false},
		{"numcodecs.zstd", "zstd", "", `{"checksum":true,"level":9}`, true},
		{"nest", "nest", "", `{"codecs":[{"configuration":{"endian":"little"},"name":"bytes"},{"name":"crc32c"}]}`, true},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("stack:\n got %+v\nwant %+v", got, want)
	}
	local := cfg.Datasets[1]
	if local.Store != (config.StoreRef{Type: "fs", Name: "local"}) || !local.ReadOnly || local.Prefix != "" ||
		!reflect.DeepEqual(local.Access, config.Access{Read: []string{"*"}}) {
		t.Errorf("local: %+v", local)
	}

	if len(cfg.Principals) != 1 || cfg.Principals[0].Name != "ingest" ||
		fmt.Sprintf("%x", cfg.Principals[0].TokenSHA256) != "d6d21e6d4a9c969670e67b5ea4b746242a23ad9ec2e8eb78c8d36f577f00581e" {
		t.Errorf("principals: %+v", cfg.Principals)
	}

	wantServer := config.DefaultServer()
	wantServer.Listen, wantServer.ReadTimeout, wantServer.MaxRequestSize = ":9000", time.Minute, 64<<20
	wantServer.TLSCertFile, wantServer.TLSKeyFile = "/etc/zarrgw/tls/cert.pem", "/etc/tls/key.pem"
	wantServer.CORSOrigins, wantServer.StoreConcurrency = []string{"https://example.org"}, 8
	wantServer.MetadataCache, wantServer.ChunkCache, wantServer.CacheTTL = 0, 1<<30, 500*time.Millisecond
	if !reflect.DeepEqual(cfg.Server, wantServer) {
		t.Errorf("server: %+v, want %+v", cfg.Server, wantServer)
	}
}

// An unpinned-manifest plugin name is accepted, with a warning naming the
// plugin that its configuration went unchecked.
func TestPluginNameUncheckedWarns(t *testing.T) {
	cfg, diags := parse(t, validSrc, config.Options{LookupEnv: func(string) (string, bool) { return "x", true }})
	if diags.HasErrors() {
		t.Fatal(render(cfg, diags))
	}
	if len(diags) != 1 || diags[0].Subject.Start.Line != 25 || !strings.Contains(diags[0].Detail, "example.org/acme/bitshave") {
		t.Errorf("want one warning on line 25 naming the plugin:\n%s", render(cfg, diags))
	}
}

// With a prober, the plugin's manifest is known and its schema applies.
func TestProbedPluginIsChecked(t *testing.T) {
	probed := 0
	probe := func(p config.Plugin) ([]extension.Manifest, error) {
		probed++
		return []extension.Manifest{{Kind: extension.Codec, Name: "bitshave", ConfigSchema: json.RawMessage(
			`{"type":"object","required":["bits"],"properties":{"bits":{"type":"integer","maximum":2}}}`)}}, nil
	}
	cfg, diags := parse(t, validSrc, config.Options{Probe: probe, LookupEnv: func(string) (string, bool) { return "x", true }})
	if probed != 1 {
		t.Errorf("probed %d times", probed)
	}
	wantOneError(t, cfg, diags, 26, `"bits"`, "at most 2")

	ok := func(config.Plugin) ([]extension.Manifest, error) {
		return []extension.Manifest{{Kind: extension.Codec, Name: "bitshave", ConfigSchema: json.RawMessage(
			`{"type":"object","properties":{"bits":{"type":"integer"}}}`)}}, nil
	}
	cfg = mustParse(t, validSrc, config.Options{Probe: ok, LookupEnv: func(string) (string, bool) { return "x", true }})
	c := cfg.Datasets[0].Codecs[0]
	if !c.Checked || c.Plugin != "example.org/acme/bitshave" || string(c.Config) != `{"bits":3}` {
		t.Errorf("probed codec: %+v", c)
	}

	// Once probed, a plugin provides what it reports and nothing more.
	none := func(config.Plugin) ([]extension.Manifest, error) { return nil, nil }
	cfg, diags = parse(t, validSrc, config.Options{Probe: none, LookupEnv: func(string) (string, bool) { return "x", true }})
	wantOneError(t, cfg, diags, 25, `Unknown codec "bitshave"`)

	failing := func(config.Plugin) ([]extension.Manifest, error) { return nil, errors.New("handshake failed") }
	cfg, diags = parse(t, validSrc, config.Options{Probe: failing, LookupEnv: func(string) (string, bool) { return "x", true }})
	if errs := errorsOf(diags); len(errs) == 0 || errs[0].Subject.Start.Line != 11 || !strings.Contains(errs[0].Detail, "handshake failed") {
		t.Errorf("want an error on the plugin block naming the failure:\n%s", render(cfg, diags))
	}
}

// The s3 block: its defaults, and what buckets made through the API may do.
func TestS3Listener(t *testing.T) {
	cfg := mustParse(t, `variable "k" {
  default = "secret"
}
store "fs" "scratch" {
  root = "/tmp/x"
}
principal "ci" {
  s3_access_key_id     = "CIKEY"
  s3_secret_access_key = var.k
}
server {
  listen = ":80"
  s3 {
    listen       = "127.0.0.1:9000"
    domain       = "s3.example.org"
    buckets_from = "store.fs.scratch"
    bucket_access {
      read  = ["ci"]
      write = ["ci"]
    }
  }
}`, config.Options{})
	l := cfg.Server.S3
	if l == nil || l.Listen != "127.0.0.1:9000" || l.Region != "us-east-1" || l.Domain != "s3.example.org" ||
		l.MultipartMaxAge != 24*time.Hour || l.MaxObjectSize != 1<<30 || l.BucketsFrom.String() != "store.fs.scratch" ||
		len(l.BucketAccess.Write) != 1 || l.BucketAccess.Write[0] != "ci" {
		t.Fatalf("s3 block decoded as %+v", l)
	}
	p, ok := cfg.PrincipalByAccessKey("CIKEY")
	if !ok || p.Name != "ci" || p.S3SecretAccessKey != "secret" || p.HasToken {
		t.Fatalf("principal by access key: %+v %v", p, ok)
	}
	if _, ok := cfg.PrincipalByAccessKey(""); ok {
		t.Fatal("the empty access key finds a principal")
	}
}
