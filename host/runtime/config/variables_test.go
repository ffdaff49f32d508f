package config_test

import (
	"testing"

	"github.com/zclconf/go-cty/cty"

	"github.com/zarrgw/zarrgw/host/runtime/config"
)

func envOf(m map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

const envSrc = `variable "endpoint" {
  default = "http://default"
  env     = "TEST_ENDPOINT"
}
variable "port" {
  default = 7070
  env     = "TEST_PORT"
}
variable "buckets" {
  default = ["a"]
  env     = "TEST_BUCKETS"
}
store "s3" "raw" {
  bucket   = var.buckets[0]
  endpoint = "${var.endpoint}:${var.port}"
}
`

// The environment variable wins when set (even to ""), else the default;
// values take the default's type.
func TestEnvFallback(t *testing.T) {
	cases := []struct {
		name     string
		env      map[string]string
		endpoint string
		json     string
		fromEnv  string
	}{
		{"defaults", nil, "http://default", `{"bucket":"a","endpoint":"http://default:7070"}`, ""},
		{"environment", map[string]string{"TEST_ENDPOINT": "https://s3", "TEST_PORT": "443", "TEST_BUCKETS": `["b", "c"]`},
			"https://s3", `{"bucket":"b","endpoint":"https://s3:443"}`, "TEST_ENDPOINT"},
		{"set but empty", map[string]string{"TEST_ENDPOINT": ""}, "", `{"bucket":"a","endpoint":":7070"}`, "TEST_ENDPOINT"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := mustParse(t, envSrc, config.Options{LookupEnv: envOf(c.env)})
			v := cfg.Variables[0]
			if v.Value != cty.StringVal(c.endpoint) || v.Env != c.fromEnv {
				t.Errorf("endpoint = %#v from %q, want %q from %q", v.Value, v.Env, c.endpoint, c.fromEnv)
			}
			if got := string(cfg.Stores[0].Extension.Config); got != c.json {
				t.Errorf("store config %s, want %s", got, c.json)
			}
		})
	}
	if port := mustParse(t, envSrc, config.Options{LookupEnv: envOf(map[string]string{"TEST_PORT": "8080"})}).Variables[1].Value; port.Type() != cty.Number {
		t.Errorf("port from the environment is a %s, want a number like its default", port.Type().FriendlyName())
	}
}

// An environment value that does not fit the default's type is an error on
// the env attribute, and references to the variable add no more errors.
func TestEnvValueOfWrongType(t *testing.T) {
	cfg, diags := parse(t, envSrc, config.Options{LookupEnv: envOf(map[string]string{"TEST_PORT": "seventy"})})
	wantOneError(t, cfg, diags, 7, "Invalid value in environment variable", "TEST_PORT", `"port"`)
}

// The real process environment is the default source.
func TestEnvFromProcess(t *testing.T) {
	t.Setenv("ZARRGW_CONFIG_TEST_ENDPOINT", "http://from-env")
	cfg, diags := config.Parse([]byte(`variable "e" {
  env = "ZARRGW_CONFIG_TEST_ENDPOINT"
}`), "t.hcl", testCatalog())
	if diags.HasErrors() || cfg.Variables[0].Value != cty.StringVal("http://from-env") {
		t.Errorf("got %+v\n%s", cfg.Variables, render(cfg, diags))
	}
}
