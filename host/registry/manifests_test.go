package registry

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/zarrgw/zarrgw/core/extension"
	"github.com/zarrgw/zarrgw/plugins/codecs/builtin"
)

// Every bundled codec has a manifest with an object schema, so HCL can
// check its configuration.
func TestEveryCodecHasASchema(t *testing.T) {
	cat := Bundled()
	for _, reg := range builtin.Registrations() {
		for _, name := range append([]string{reg.Name}, reg.Aliases...) {
			m, ok := cat.Manifest(extension.Codec, name)
			if !ok || m.Name != reg.Name {
				t.Errorf("%s: manifest %+v, %v", name, m, ok)
			}
		}
		var s struct {
			Type       string                     `json:"type"`
			Properties map[string]json.RawMessage `json:"properties"`
		}
		if _, ok := codecSchemas[reg.Name]; !ok {
			t.Errorf("%s: no schema in codecSchemas", reg.Name)
			continue
		}
		if err := json.Unmarshal([]byte(codecSchemas[reg.Name]), &s); err != nil || s.Type != "object" || s.Properties == nil {
			t.Errorf("%s: schema %v %+v", reg.Name, err, s)
		}
	}
}

// The defaults a schema states are configurations its codec accepts.
func TestSchemaDefaultsBuild(t *testing.T) {
	for _, reg := range builtin.Registrations() {
		var s struct {
			Required   []string `json:"required"`
			Properties map[string]struct {
				Default json.RawMessage `json:"default"`
			} `json:"properties"`
		}
		if err := json.Unmarshal([]byte(codecSchemas[reg.Name]), &s); err != nil || len(s.Required) > 0 {
			continue
		}
		cfg := map[string]json.RawMessage{}
		for name, p := range s.Properties {
			if p.Default != nil {
				cfg[name] = p.Default
			}
		}
		raw, _ := json.Marshal(cfg)
		if _, err := reg.New(raw, nil); err != nil {
			t.Errorf("%s: defaults %s: %v", reg.Name, raw, err)
		}
	}
}

func TestCatalog(t *testing.T) {
	cat := Bundled()
	for _, c := range []struct {
		kind       extension.Kind
		name, want string
	}{
		{extension.Store, "fs", "fs"},
		{extension.Store, "s3", "s3"},
		{extension.Transformer, "sharding", "sharding"},
		{extension.Transformer, "https://purl.org/zarr/spec/extensions/storage-transformers/sharding/1.0", "sharding"},
		{extension.Codec, "https://purl.org/zarr/spec/codec/zstd/1.0", "zstd"},
		{extension.Codec, "numcodecs.zstd", "zstd"},
	} {
		if m, ok := cat.Manifest(c.kind, c.name); !ok || m.Name != c.want {
			t.Errorf("%s %s: %+v %v", c.kind, c.name, m, ok)
		}
	}
	if _, ok := cat.Manifest(extension.Store, "zstd"); ok {
		t.Error("a codec answered as a store")
	}
	for _, m := range cat.Manifests(extension.Codec) {
		for _, a := range m.Aliases {
			if strings.Contains(a, "://") {
				t.Errorf("%s: URI %s among aliases", m.Name, a)
			}
		}
	}
	ms := cat.Manifests(extension.Store)
	if len(ms) != 2 || ms[0].Name != "fs" || ms[1].Name != "s3" {
		t.Errorf("stores: %+v", ms)
	}
	// A plugin may add names, but not take over one.
	if err := cat.Add(extension.Manifest{Kind: extension.Codec, Name: "bitshave"}); err != nil {
		t.Error(err)
	}
	if _, ok := cat.Manifest(extension.Codec, "bitshave"); !ok {
		t.Error("added manifest not found")
	}
	if err := cat.Add(extension.Manifest{Kind: extension.Codec, Name: "fast-zstd", Aliases: []string{"zstd"}}); err == nil {
		t.Error("a plugin took over zstd")
	}
	if _, ok := cat.Manifest(extension.Codec, "fast-zstd"); ok {
		t.Error("a refused manifest was partly added")
	}
}
