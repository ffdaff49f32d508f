package config_test

import (
	"encoding/json"
	"testing"

	"github.com/hashicorp/hcl/v2"

	"github.com/zarrgw/zarrgw/core/extension"
	"github.com/zarrgw/zarrgw/host/runtime/config"
)

func codecCatalog(schema string) *extension.Catalog {
	return extension.NewCatalog(
		extension.Manifest{Kind: extension.Store, Name: "fs", ConfigSchema: json.RawMessage(`{"type":"object","properties":{"root":{"type":"string"}}}`)},
		extension.Manifest{Kind: extension.Codec, Name: "c", ConfigSchema: json.RawMessage(schema)},
	)
}

func codecConfig(t *testing.T, schema, body string) (string, *config.Config, hcl.Diagnostics) {
	t.Helper()
	src := `store "fs" "a" {}
dataset "d" {
  store = store.fs.a
  codec "c" {
    ` + body + `
  }
}`
	cfg, diags := parse(t, src, config.Options{Catalog: codecCatalog(schema)})
	if diags.HasErrors() {
		return "", cfg, diags
	}
	return string(cfg.Datasets[0].Codecs[0].Config), cfg, diags
}

// The JSON handed to an extension: exact numbers, nested values, omitted
// optional attributes, per the schema's types.
func TestConfigJSON(t *testing.T) {
	cases := []struct{ schema, body, want string }{
		{`{"type":"object","properties":{"x":{"type":"number"},"y":{"type":"number"}}}`, `x = 0.1`, `{"x":0.1}`},
		{`{"type":"object","properties":{"n":{"type":"integer"}}}`, `n = 12345678901234567890`, `{"n":12345678901234567890}`},
		{`{"type":"object","properties":{"s":{"type":"string"}}}`, `s = "a\"b"`, `{"s":"a\"b"}`},
		{`{"type":"object","properties":{"l":{"type":"array","items":{"type":"string"}}}}`, `l = []`, `{"l":[]}`},
		{`{"type":"object","properties":{"o":{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"boolean"}}}}}`,
			`o = { a = 1 }`, `{"o":{"a":1}}`},
		// the same object written as a nested block, as HCL writers expect
		{`{"type":"object","properties":{"o":{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"boolean"}}}}}`,
			"o {\n      a = 1\n      b = true\n    }", `{"o":{"a":1,"b":true}}`},
		{`{"type":"object","properties":{"any":{}}}`, `any = [1, "two", { three = 3 }]`, `{"any":[1,"two",{"three":3}]}`},
		{`{"type":"object","properties":{"u":{"type":["string","integer"]}}}`, `u = "x"`, `{"u":"x"}`},
		{`{"type":"object","properties":{"u":{"type":["string","integer"]}}}`, `u = 7`, `{"u":7}`},
		{`{"type":"object","additionalProperties":true,"properties":{"n":{"type":"integer"}}}`, `n = 1
    extra = "x"`, `{"extra":"x","n":1}`},
	}
	for _, c := range cases {
		got, cfg, diags := codecConfig(t, c.schema, c.body)
		if diags.HasErrors() {
			t.Errorf("%s: %s", c.body, render(cfg, diags))
			continue
		}
		if got != c.want {
			t.Errorf("%s: %s, want %s", c.body, got, c.want)
		}
	}
}

// Values a schema refuses, with the message naming the attribute.
func TestSchemaRefuses(t *testing.T) {
	cases := []struct{ schema, body, want string }{
		{`{"type":"object","properties":{"u":{"type":["string","integer"]}}}`, `u = true`, "u must be string or integer, not a boolean"},
		{`{"type":"object","properties":{"any":{"type":"array"}}}`, `any = "x"`, "any must be array, not a string"},
		{`{"type":"object","properties":{"o":{"type":"object"}}}`, `o = 1`, "o must be object, not a number"},
		{`{"type":"object","properties":{"l":{"type":"array","items":{"type":"object","properties":{"a":{}}}}}}`,
			`l = [{ a = 1 }, { b = 2 }]`, `l[1].b is not a known property`},
		{`{"type":"object","properties":{"e":{"enum":[1,2]}}}`, `e = 3`, "e must be one of 1 or 2"},
		{`{"type":"object","additionalProperties":true,"properties":{"n":{"type":"integer"}}}`, `n = "x"`, `attribute "n"`},
		{`{"type":"object","properties":{"n":{"type":"integer"}}}`, `m = 1`, `"m" is not expected here`},
		{`{"type":"object","properties":{"o":{"type":"object","properties":{"a":{"type":"integer"}}}}}`, `o { c = 1 }`, `"c" is not expected here`},
		{`{"type":"object","properties":{"o":{"type":"object","properties":{"a":{"type":"integer","minimum":2}}}}}`, `o { a = 1 }`, `o.a`},
	}
	for _, c := range cases {
		_, cfg, diags := codecConfig(t, c.schema, c.body)
		wantOneError(t, cfg, diags, 5, c.want)
	}
}

// A manifest without a schema leaves checking to the extension; one whose
// schema is not an object is reported at the block's label.
func TestSchemaAbsentOrUnusable(t *testing.T) {
	src := `store "fs" "a" { root = "/x" }
dataset "d" {
  store = store.fs.a
  codec "free" {
    anything = [1, 2]
  }
}`
	cfg := mustParse(t, src, config.Options{})
	if c := cfg.Datasets[0].Codecs[0]; string(c.Config) != `{"anything":[1,2]}` || !c.Checked {
		t.Errorf("free codec: %+v", c)
	}

	_, cfg, diags := codecConfig(t, `{"type":"string"}`, ``)
	wantOneError(t, cfg, diags, 4, "Unusable configuration schema")
}
