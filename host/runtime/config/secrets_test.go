package config_test

import (
	"strings"
	"testing"

	"github.com/zarrgw/zarrgw/host/runtime/config"
)

// secretVars are lines 1-10 of the sources below: the secret and the
// token hash from variables, as config.hcl.example has them.
const secretVars = `variable "s3_secret" {
  env       = "S3_SECRET"
  default   = ""
  sensitive = true
}
variable "token_sha256" {
  env     = "TOKEN_SHA256"
  default = ""
}
variable "plain" { default = "" }
`

const (
	tokenA = "d6d21e6d4a9c969670e67b5ea4b746242a23ad9ec2e8eb78c8d36f577f00581e" // SHA-256 of "ingest-token"
	tokenB = "ef80202ea99d7c668a9677d9242456057ac10488311cb8757674490e194a56e1"
)

// An empty secret or token hash is an error that says which environment
// variable to set: left to its empty default, or set but empty.
func TestEmptySecrets(t *testing.T) {
	s3 := secretVars + `principal "ingest" {
  s3_access_key_id     = "INGEST"
  s3_secret_access_key = var.s3_secret
}
`
	token := secretVars + `principal "ingest" {
  token_sha256 = var.token_sha256
}
`
	cases := []struct {
		name, src string
		env       map[string]string
		line      int
		want      []string
	}{
		{"S3 secret left to its default", s3, nil, 13, []string{"Empty S3 secret", `"ingest"`, "var.s3_secret", "set the environment variable S3_SECRET"}},
		{"S3 secret set empty", s3, map[string]string{"S3_SECRET": ""}, 13, []string{"Empty S3 secret", "S3_SECRET is set but empty"}},
		{"S3 secret of spaces", s3, map[string]string{"S3_SECRET": "  "}, 13, []string{"Empty S3 secret", "S3_SECRET is set but empty"}},
		{"S3 secret from a variable without env", strings.Replace(s3, "var.s3_secret", "var.plain", 1), nil, 13,
			[]string{"Empty S3 secret", `env = "NAME"`}},
		{"empty S3 access key ID", strings.Replace(s3, `"INGEST"`, `"${var.plain}"`, 1), map[string]string{"S3_SECRET": "s3cr3t"}, 12,
			[]string{"Empty S3 access key ID", `"ingest"`}},
		{"token hash left to its default", token, nil, 12, []string{"Empty token_sha256", `"ingest"`, "set the environment variable TOKEN_SHA256", "sha256sum"}},
		{"token hash set empty", token, map[string]string{"TOKEN_SHA256": ""}, 12, []string{"Empty token_sha256", "TOKEN_SHA256 is set but empty"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg, diags := parse(t, c.src, config.Options{LookupEnv: envOf(c.env)})
			wantOneError(t, cfg, diags, c.line, c.want...)
		})
	}
}

// A credential that zarrgw's own examples publish is refused.
func TestPublishedSecrets(t *testing.T) {
	src := secretVars + `principal "ingest" {
  token_sha256         = var.token_sha256
  s3_access_key_id     = "INGEST"
  s3_secret_access_key = var.s3_secret
}
`
	cases := []struct {
		name string
		env  map[string]string
		line int
		want []string
	}{
		{"example S3 secret", map[string]string{"S3_SECRET": "change-me", "TOKEN_SHA256": tokenA}, 14,
			[]string{"Published secret", "s3_secret_access_key", "S3_SECRET"}},
		{"example token hash", map[string]string{"S3_SECRET": "s3cr3t", "TOKEN_SHA256": "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"}, 12,
			[]string{"Published secret", "token_sha256", `SHA-256 of "test"`, "TOKEN_SHA256"}},
		{"example token hash in capitals", map[string]string{"S3_SECRET": "s3cr3t", "TOKEN_SHA256": "9F86D081884C7D659A2FEAA0C55AD015A3BF4F1B2B0B822CD15D6C15B0F00A08"}, 12,
			[]string{"Published secret", "token_sha256"}},
		{"hash of the empty token", map[string]string{"S3_SECRET": "s3cr3t", "TOKEN_SHA256": "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"}, 12,
			[]string{"Published secret", "empty token"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg, diags := parse(t, src, config.Options{LookupEnv: envOf(c.env)})
			d := wantOneError(t, cfg, diags, c.line, c.want...)
			if strings.Contains(d.Detail, "change-me") {
				t.Errorf("the secret is printed: %s", d.Detail)
			}
		})
	}
	cfg := mustParse(t, src, config.Options{LookupEnv: envOf(map[string]string{"S3_SECRET": "s3cr3t", "TOKEN_SHA256": tokenA})})
	if p, ok := cfg.PrincipalByAccessKey("INGEST"); !ok || p.S3SecretAccessKey != "s3cr3t" || !p.HasToken {
		t.Errorf("principal %+v", p)
	}
}

// Two principals sharing an S3 access key ID or a token could act as each
// other: an error naming both, on the second's line, giving the first's.
func TestSharedCredentials(t *testing.T) {
	env := envOf(map[string]string{"S3_SECRET": "s3cr3t", "OTHER_SECRET": "0ther"})
	vars := secretVars + `variable "other_secret" {
  env       = "OTHER_SECRET"
  sensitive = true
}
`
	s3 := vars + `principal "ingest" {
  s3_access_key_id     = "INGEST"
  s3_secret_access_key = var.s3_secret
}
principal "writer" {
  s3_access_key_id     = "INGEST"
  s3_secret_access_key = var.other_secret
}
`
	cfg, diags := parse(t, s3, config.Options{LookupEnv: env})
	wantOneError(t, cfg, diags, 20, "S3 access key ID", `"ingest"`, `"writer"`, "/etc/zarrgw/test.hcl:16")

	token := vars + `principal "ingest" {
  token_sha256 = "` + tokenA + `"
}
principal "reader" {
  token_sha256 = "` + tokenB + `"
}
principal "writer" {
  token_sha256 = " ` + strings.ToUpper(tokenA) + `"
}
`
	cfg, diags = parse(t, token, config.Options{LookupEnv: env})
	wantOneError(t, cfg, diags, 22, "token", `"ingest"`, `"writer"`, "/etc/zarrgw/test.hcl:16")
}
