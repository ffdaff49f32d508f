package config_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"

	"github.com/zarrgw/zarrgw/core/extension"
	"github.com/zarrgw/zarrgw/host/runtime/config"
	"github.com/zarrgw/zarrgw/host/runtime/registry"
)

// exampleEnv sets the credentials the example leaves to the environment.
var exampleEnv = envOf(map[string]string{
	"ZARRGW_INGEST_TOKEN_SHA256": "d6d21e6d4a9c969670e67b5ea4b746242a23ad9ec2e8eb78c8d36f577f00581e",
	"ZARRGW_INGEST_S3_SECRET":    "an-ingest-secret",
})

// The example at the repository root is valid against the bundled
// extensions, once the environment gives the ingest principal's
// credentials; the only warning is for the plugin's unchecked codec.
func TestExampleIsValid(t *testing.T) {
	cfg, diags := config.LoadWith("../../../config.hcl.example", config.Options{Catalog: exampleCatalog(t), LookupEnv: exampleEnv})
	if diags.HasErrors() || len(diags) != 1 || !strings.Contains(diags[0].Summary, `codec "bitshave" not checked`) {
		t.Fatalf("want one warning about bitshave:\n%s", render(cfg, diags))
	}
	era5, ok := cfg.Dataset("era5")
	if !ok || len(era5.Transformers) != 1 || string(era5.Transformers[0].Config) != `{"chunks_per_shard":[32,2]}` ||
		len(era5.Codecs) == 0 || era5.Store.String() != "store.s3.raw" || len(era5.Access.Write) == 0 {
		t.Errorf("era5: %+v", era5)
	}
	var refs []string
	for _, st := range cfg.Stores {
		refs = append(refs, st.Ref.String())
	}
	if strings.Join(refs, " ") != "store.fs.local store.s3.raw store.azure.archive store.http.mirror store.references.era5_nc" || len(cfg.Plugins) != 1 {
		t.Errorf("stores %v, %d plugins", refs, len(cfg.Plugins))
	}
	if _, ok := cfg.Plugin("example.org/acme/bitshave"); !ok {
		t.Error("plugin missing")
	}
	if s3 := cfg.Server.S3; s3 == nil || s3.BucketsPrefix != "buckets" {
		t.Errorf("s3 %+v", s3)
	}
	if ds, ok := cfg.BucketOverlaps("scratch"); ok {
		t.Errorf("a bucket overlaps dataset %q", ds)
	}
}

// The example ships no working credentials: without the environment it
// fails, naming the variables to set.
func TestExampleNeedsCredentials(t *testing.T) {
	cfg, diags := config.LoadWith("../../../config.hcl.example", config.Options{Catalog: exampleCatalog(t), LookupEnv: noEnv})
	var text string
	for _, d := range errorsOf(diags) {
		text += d.Detail + "\n"
	}
	if len(errorsOf(diags)) != 2 || !strings.Contains(text, "set the environment variable ZARRGW_INGEST_TOKEN_SHA256") ||
		!strings.Contains(text, "set the environment variable ZARRGW_INGEST_S3_SECRET") {
		t.Errorf("want the two credentials refused:\n%s", render(cfg, diags))
	}
}

// Every bundled schema converts: an empty block is either accepted or
// missing only the schema's required attributes.
func TestBundledSchemasConvert(t *testing.T) {
	cat := registry.Bundled().Catalog()
	for _, kind := range []extension.Kind{extension.Codec, extension.Store, extension.Transformer} {
		for _, m := range cat.Manifests(kind) {
			var block string
			switch kind {
			case extension.Store:
				block = fmt.Sprintf("store %q \"x\" {}\n", m.Name)
			case extension.Transformer:
				block = fmt.Sprintf("store \"fs\" \"a\" { root = \"/\" }\ndataset \"d\" {\n  store = store.fs.a\n  transformer %q {}\n}\n", m.Name)
			default:
				block = fmt.Sprintf("store \"fs\" \"a\" { root = \"/\" }\ndataset \"d\" {\n  store = store.fs.a\n  codec %q {}\n}\n", m.Name)
			}
			cfg, diags := parse(t, block, config.Options{Catalog: cat})
			for _, d := range errorsOf(diags) {
				if d.Summary != "Missing required argument" {
					t.Errorf("%s %s:\n%s", kind, m.Name, render(cfg, hcl.Diagnostics{d}))
				}
			}
		}
	}
}

// exampleCatalog is the bundled catalog, with a stand-in for the s3 store
// the example declares until zarrgw bundles one: the example shows the
// configuration language, whatever this build can open.
func exampleCatalog(t *testing.T) *extension.Catalog {
	cat := registry.Bundled().Catalog()
	if _, ok := cat.Lookup(extension.Store, "s3"); ok {
		return cat
	}
	err := cat.Add("test/s3-stand-in", extension.Manifest{Kind: extension.Store, Name: "s3", ConfigSchema: json.RawMessage(`{"type":"object","required":["bucket"],"properties":{
	"bucket":{"type":"string"},
	"region":{"type":"string"},
	"endpoint":{"type":"string"},
	"prefix":{"type":"string"},
	"use_path_style":{"type":"boolean"},
	"access_key_id":{"type":"string"},
	"secret_access_key":{"type":"string","writeOnly":true},
	"session_token":{"type":"string","writeOnly":true}}}`)})
	if err != nil {
		t.Fatal(err)
	}
	return cat
}
