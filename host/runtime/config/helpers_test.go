package config_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"

	"github.com/zarrgw/zarrgw/core/extension"
	"github.com/zarrgw/zarrgw/host/runtime/config"
)

// testCatalog holds small manifests, so the tests do not move when a
// bundled extension's schema does.
func testCatalog() *extension.Catalog {
	return extension.NewCatalog(
		extension.Manifest{Kind: extension.Store, Name: "fs", ConfigSchema: json.RawMessage(`{"type":"object","required":["root"],"properties":{
			"root":{"type":"string"},"dir_sync":{"type":"boolean"},"create_root":{"type":"boolean"}}}`)},
		extension.Manifest{Kind: extension.Store, Name: "s3", ConfigSchema: json.RawMessage(`{"type":"object","required":["bucket"],"properties":{
			"bucket":{"type":"string"},"region":{"type":"string"},"endpoint":{"type":"string"},
			"secret_access_key":{"type":"string","writeOnly":true}}}`)},
		extension.Manifest{Kind: extension.Transformer, Name: "sharding",
			URIs: []string{"https://purl.org/zarr/spec/extensions/storage-transformers/sharding/1.0"},
			ConfigSchema: json.RawMessage(`{"type":"object","required":["chunks_per_shard"],"properties":{
			"chunks_per_shard":{"type":"array","items":{"type":"integer","minimum":1}}}}`)},
		extension.Manifest{Kind: extension.Codec, Name: "zstd", Aliases: []string{"numcodecs.zstd"}, ConfigSchema: json.RawMessage(`{"type":"object","properties":{
			"level":{"type":"integer","minimum":-131072,"maximum":22},"checksum":{"type":"boolean"}}}`)},
		extension.Manifest{Kind: extension.Codec, Name: "bytes", ConfigSchema: json.RawMessage(`{"type":"object","properties":{
			"endian":{"type":"string","enum":["little","big"]}}}`)},
		extension.Manifest{Kind: extension.Codec, Name: "nest", ConfigSchema: json.RawMessage(`{"type":"object","properties":{
			"codecs":{"type":"array","items":{"type":"object","required":["name"],"properties":{
				"name":{"type":"string"},"configuration":{"type":"object"}}}}}}`)},
		extension.Manifest{Kind: extension.Codec, Name: "free"}, // declares no schema
	)
}

// noEnv is an environment in which nothing is set.
func noEnv(string) (string, bool) { return "", false }

func parse(t *testing.T, src string, opts config.Options) (*config.Config, hcl.Diagnostics) {
	t.Helper()
	if opts.Catalog == nil {
		opts.Catalog = testCatalog()
	}
	if opts.LookupEnv == nil {
		opts.LookupEnv = noEnv
	}
	return config.ParseWith([]byte(src), "/etc/zarrgw/test.hcl", opts)
}

// mustParse parses src and fails on any error.
func mustParse(t *testing.T, src string, opts config.Options) *config.Config {
	t.Helper()
	cfg, diags := parse(t, src, opts)
	if diags.HasErrors() {
		t.Fatalf("unexpected errors:\n%s", render(cfg, diags))
	}
	return cfg
}

func render(cfg *config.Config, diags hcl.Diagnostics) string {
	var b strings.Builder
	_ = cfg.WriteDiagnostics(&b, diags)
	return b.String()
}

// errorsOf returns the error diagnostics.
func errorsOf(diags hcl.Diagnostics) []*hcl.Diagnostic {
	var out []*hcl.Diagnostic
	for _, d := range diags {
		if d.Severity == hcl.DiagError {
			out = append(out, d)
		}
	}
	return out
}

// wantOneError checks that diags hold exactly one error, on line, whose
// summary and detail contain every string in want.
func wantOneError(t *testing.T, cfg *config.Config, diags hcl.Diagnostics, line int, want ...string) *hcl.Diagnostic {
	t.Helper()
	errs := errorsOf(diags)
	if len(errs) != 1 {
		t.Fatalf("want 1 error, got %d:\n%s", len(errs), render(cfg, diags))
	}
	d := errs[0]
	if d.Subject == nil || d.Subject.Start.Line != line {
		t.Errorf("error on %v, want line %d:\n%s", d.Subject, line, render(cfg, diags))
	}
	if d.Subject != nil && d.Subject.Filename != "/etc/zarrgw/test.hcl" {
		t.Errorf("error in file %q", d.Subject.Filename)
	}
	text := d.Summary + "\n" + d.Detail
	for _, w := range want {
		if !strings.Contains(text, w) {
			t.Errorf("error does not mention %q:\n%s", w, text)
		}
	}
	return d
}
