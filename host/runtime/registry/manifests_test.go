package registry

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/zarrgw/zarrgw/core/extension"
)

// Every bundled extension has a manifest with an object schema beside its
// code, so HCL can check its configuration, and answers in the catalog to
// every name it registers.
func TestEveryExtensionHasASchema(t *testing.T) {
	set := Bundled()
	cat := set.Catalog()
	for _, m := range set.Manifests() {
		for _, name := range m.Names() {
			if e, ok := cat.Lookup(m.Kind, name); !ok || e.Manifest.Name != m.Name || !e.Bundled() {
				t.Errorf("%s %s: %+v, %v", m.Kind, name, e, ok)
			}
		}
		s, err := extension.ParseSchema(m.ConfigSchema)
		if err != nil || s.Single() != "object" || s.Properties == nil {
			t.Errorf("%s %s: schema %s: %v", m.Kind, m.Name, m.ConfigSchema, err)
		}
		for _, a := range m.Aliases {
			if strings.Contains(a, "://") {
				t.Errorf("%s: URI %s among aliases", m.Name, a)
			}
		}
	}
}

// The defaults a codec's schema states are configurations it accepts.
func TestSchemaDefaultsBuild(t *testing.T) {
	for _, reg := range Bundled().Codecs {
		var s struct {
			Required   []string `json:"required"`
			Properties map[string]struct {
				Default json.RawMessage `json:"default"`
			} `json:"properties"`
		}
		if err := json.Unmarshal(reg.Manifest.ConfigSchema, &s); err != nil || len(s.Required) > 0 {
			continue
		}
		cfg := map[string]json.RawMessage{}
		for name, p := range s.Properties {
			if p.Default != nil {
				cfg[name] = p.Default
			}
		}
		raw, _ := json.Marshal(cfg)
		if _, err := reg.New(context.Background(), raw, nil); err != nil {
			t.Errorf("%s: defaults %s: %v", reg.Manifest.Name, raw, err)
		}
	}
}

// No manifest without an implementation: every store and transformer of
// the set opens in process.
func TestBundledStoresAndTransformers(t *testing.T) {
	set := Bundled()
	cat := set.Catalog()
	var stores []string
	for _, m := range cat.Manifests(extension.Store) {
		stores = append(stores, m.Name)
	}
	if strings.Join(stores, " ") != "azure fs http references s3" {
		t.Errorf("stores %v", stores)
	}
	for _, name := range []string{"sharding", "https://purl.org/zarr/spec/extensions/storage-transformers/sharding/1.0"} {
		if e, ok := cat.Lookup(extension.Transformer, name); !ok || e.Manifest.Name != "sharding" {
			t.Errorf("transformer %s: %+v %v", name, e, ok)
		}
	}
	ctx := context.Background()
	parts := set.InProcess()
	st, err := parts.OpenStore(ctx, "fs", json.RawMessage(`{"root":"`+t.TempDir()+`"}`))
	if err != nil {
		t.Fatal(err)
	}
	sh, err := parts.NewTransformer(ctx, "sharding", json.RawMessage(`{"chunks_per_shard":[2]}`), st)
	if err != nil {
		t.Fatal(err)
	}
	defer sh.Close()
	if _, err := parts.OpenStore(ctx, "gcs", nil); err == nil || !strings.Contains(err.Error(), `"gcs" is not bundled`) {
		t.Errorf("gcs: %v", err)
	}
	if _, err := parts.OpenStore(ctx, "s3", json.RawMessage(`{}`)); err == nil || !strings.Contains(err.Error(), "bucket") {
		t.Errorf("s3 without a bucket: %v", err)
	}
	if _, err := parts.OpenStore(ctx, "fs", json.RawMessage(`{"root":"x","rooot":1}`)); err == nil || !strings.Contains(err.Error(), "rooot") {
		t.Errorf("misspelt option: %v", err)
	}
}
