package config_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"

	"github.com/zarrgw/zarrgw/host/runtime/config"
)

// The values of the sensitive variables below, from the environment so
// that no snippet of the file can show them.
const (
	secretText   = "s3secBOB-7f3a"
	secretNumber = "987654321"
)

var sensitiveEnv = envOf(map[string]string{"SEC": secretText, "NUM": secretNumber,
	"SEC_NUMBER": secretText, "SEC_LIST": `["` + secretText})

const sensitiveVars = `variable "sec" {
  env       = "SEC"
  sensitive = true
}
variable "num" {
  default   = 0
  env       = "NUM"
  sensitive = true
}
store "fs" "a" {
  root = "/x"
}
`

// sensitiveCases send a sensitive value into every kind of attribute
// that can fail validation.
var sensitiveCases = map[string]string{
	"server listen":          "server {\n  listen = var.sec\n}",
	"server listen template": "server {\n  listen = \"${var.sec}:http\"\n}",
	"operator":               "server {\n  listen = var.sec + 1\n}",
	"index":                  "server {\n  listen = var.sec[0]\n}",
	"for expression":         "server {\n  listen = \":80\"\n  cors_origins = [for s in [var.sec] : s + 1]\n}",
	"idle_timeout":           "server {\n  listen = \":80\"\n  idle_timeout = var.sec\n}",
	"chunk_cache":            "server {\n  listen = \":80\"\n  chunk_cache = var.sec\n}",
	"chunk_cache number":     "server {\n  listen = \":80\"\n  chunk_cache = -var.num\n}",
	"s3 listen":              "server {\n  listen = \":80\"\n  s3 {\n    listen = var.sec\n  }\n}",
	"buckets_from":           "server {\n  listen = \":80\"\n  s3 {\n    listen = \":90\"\n    buckets_from = var.sec\n  }\n}",
	"multipart_max_age":      "server {\n  listen = \":80\"\n  s3 {\n    listen = \":90\"\n    multipart_max_age = var.sec\n  }\n}",
	"max_object_size":        "server {\n  listen = \":80\"\n  s3 {\n    listen = \":90\"\n    max_object_size = var.sec\n  }\n}",
	"dataset store":          "dataset \"d\" {\n  store = var.sec\n}",
	"dataset prefix":         "dataset \"d\" {\n  store = store.fs.a\n  prefix = \"/${var.sec}\"\n}",
	"read_only":              "dataset \"d\" {\n  store = store.fs.a\n  read_only = var.sec\n}",
	"access list":            "dataset \"d\" {\n  store = store.fs.a\n  access {\n    read = [var.sec]\n  }\n}",
	"token_sha256":           "principal \"p\" {\n  token_sha256 = var.sec\n}",
	"plugin sha256":          "plugin \"a.org/b/c\" {\n  path = \"x\"\n  sha256 = var.sec\n}",
	"plugin version":         "plugin \"a.org/b/c\" {\n  version = var.sec\n}",
	"plugin env name":        "plugin \"a.org/b/c\" {\n  path = \"x\"\n  sha256 = \"" + strings.Repeat("a", 64) + "\"\n  env = { \"${var.sec}\" = \"x\" }\n}",
	"store attribute type":   "store \"fs\" \"b\" {\n  root = \"/y\"\n  dir_sync = var.sec\n}",
	"codec attribute type":   "dataset \"d\" {\n  store = store.fs.a\n  codec \"zstd\" {\n    level = var.sec\n  }\n}",
	"codec number bound":     "dataset \"d\" {\n  store = store.fs.a\n  codec \"zstd\" {\n    level = var.num\n  }\n}",
	"codec enum":             "dataset \"d\" {\n  store = store.fs.a\n  codec \"bytes\" {\n    endian = var.sec\n  }\n}",
	"environment not a number": `variable "n" {
  default   = 1
  env       = "SEC_NUMBER"
  sensitive = true
}`,
	"environment not a list": `variable "l" {
  default   = ["a"]
  env       = "SEC_LIST"
  sensitive = true
}`,
}

// leaks returns the diagnostics' text where a secret shows: summary,
// detail and the rendered output, snippets and expression values included.
func leaks(cfg *config.Config, diags hcl.Diagnostics) []string {
	var out []string
	texts := []string{render(cfg, diags)}
	for _, d := range diags {
		texts = append(texts, d.Summary, d.Detail)
	}
	for _, text := range texts {
		for _, s := range []string{secretText, secretNumber, "9.87654321e+08"} {
			if strings.Contains(text, s) {
				out = append(out, text)
			}
		}
	}
	return out
}

// No diagnostic prints the value of a sensitive variable, whatever
// attribute it went into; they name the variable instead.
func TestSensitiveValuesStayOutOfDiagnostics(t *testing.T) {
	for name, src := range sensitiveCases {
		t.Run(name, func(t *testing.T) {
			cfg, diags := parse(t, sensitiveVars+src, config.Options{LookupEnv: sensitiveEnv})
			if !diags.HasErrors() {
				t.Fatalf("no error:\n%s", src)
			}
			for _, text := range leaks(cfg, diags) {
				t.Errorf("the secret shows in:\n%s", text)
			}
		})
	}
}

// Where a message quoted the value, it now names the variable.
func TestSensitiveValueNamed(t *testing.T) {
	cfg, diags := parse(t, sensitiveVars+sensitiveCases["s3 listen"], config.Options{LookupEnv: sensitiveEnv})
	wantOneError(t, cfg, diags, 16, "Invalid listen address", "the value of var.sec")
	cfg, diags = parse(t, sensitiveVars+sensitiveCases["codec number bound"], config.Options{LookupEnv: sensitiveEnv})
	wantOneError(t, cfg, diags, 16, "at most 22", "var.num")
}

// A value not sensitive is still quoted.
func TestValuesStillQuoted(t *testing.T) {
	src := strings.Replace(sensitiveVars, "sensitive = true", "sensitive = false", 1) + sensitiveCases["s3 listen"]
	cfg, diags := parse(t, src, config.Options{LookupEnv: sensitiveEnv})
	wantOneError(t, cfg, diags, 16, "Invalid listen address", `"`+secretText+`"`)
}

// Check, as "zarrgw validate" runs it, hides them in what it prints and
// in its error, the plugin checks after decoding included.
func TestCheckHidesSensitiveValues(t *testing.T) {
	path := filepath.Join(t.TempDir(), "zarrgw.hcl")
	src := strings.Replace(sensitiveVars, `root = "/x"`, `root = "/"`, 1) + `plugin "a.org/b/c" {
  path   = "/nonexistent/${var.sec}"
  sha256 = "` + strings.Repeat("a", 64) + `"
}
server {
  listen = var.sec
}
`
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	_, err := config.Check(path, config.Options{Catalog: testCatalog(), LookupEnv: sensitiveEnv}, &out)
	if err == nil || strings.Contains(err.Error(), secretText) {
		t.Errorf("error: %v", err)
	}
	if strings.Contains(out.String(), secretText) || !strings.Contains(out.String(), "var.sec") {
		t.Errorf("output:\n%s", out.String())
	}

	// The plugin's warning comes from VerifyPlugins, after decoding.
	src = strings.Replace(src, "listen = var.sec", `listen = ":80"`, 1)
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	if _, err := config.Check(path, config.Options{Catalog: testCatalog(), LookupEnv: sensitiveEnv}, &out); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.String(), secretText) || !strings.Contains(out.String(), "Plugin binary not found") {
		t.Errorf("output:\n%s", out.String())
	}
}

// A short sensitive value is hidden where it is quoted, and as a word in
// messages about its variable, without mangling other messages that
// happen to hold it.
func TestShortSensitiveValue(t *testing.T) {
	src := `variable "short" {
  env       = "SHORT"
  sensitive = true
}
store "fs" "a" {
  root = "/x"
}
dataset "d" {
  store = store.fs.a
  codec "tabled" {}
}
server {
  listen = var.short
}
`
	cfg, diags := parse(t, src, config.Options{LookupEnv: envOf(map[string]string{"SHORT": "ab"})})
	out := render(cfg, diags)
	if len(errorsOf(diags)) != 2 || strings.Contains(strings.ReplaceAll(out, "tabled", ""), "ab") ||
		!strings.Contains(out, `Unknown codec "tabled"`) || !strings.Contains(out, "the value of var.short") {
		t.Errorf("%s", out)
	}
}
