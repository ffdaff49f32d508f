package config_test

import (
	"strings"
	"testing"
	"time"

	"github.com/zarrgw/zarrgw/host/runtime/config"
)

const identitySrc = `variable "seal" {
  env       = "SEAL"
  sensitive = true
}
identity_provider "corp" {
  issuer   = "https://login.example.org/realms/x"
  audience = ["zarrgw", "zarrgw-cli"]
  leeway   = "10s"
}
principal "analysts" {
  identity_provider = identity_provider.corp
  claims            = { groups = "analysts", "realm_access.roles" = "reader" }
  rate_limit {
    requests_per_second = 50
    burst               = 100
    bytes_per_second    = "10MiB/s"
    per                 = "subject"
  }
}
server {
  listen = "127.0.0.1:8080"
  anonymous_rate_limit { requests_per_second = 5 }
  s3 {
    listen = "127.0.0.1:9000"
    sts {
      seal_keys    = [var.seal]
      max_duration = "2h"
    }
  }
}
`

func TestIdentityProviderPrincipalAndLimits(t *testing.T) {
	cfg := mustParse(t, identitySrc, config.Options{LookupEnv: func(k string) (string, bool) {
		return strings.Repeat("k", 40), k == "SEAL"
	}})
	ip, ok := cfg.IdentityProvider("corp")
	if !ok || ip.Issuer != "https://login.example.org/realms/x" || len(ip.Audience) != 2 || ip.Leeway != 10*time.Second {
		t.Fatalf("identity provider: %+v", ip)
	}
	p, _ := cfg.Principal("analysts")
	if p.IdentityProvider != "corp" || p.Claims["groups"] != "analysts" || p.Claims["realm_access.roles"] != "reader" {
		t.Fatalf("principal: %+v", p)
	}
	if l := p.RateLimit; l == nil || l.RequestsPerSecond != 50 || l.Burst != 100 || l.BytesPerSecond != 10<<20 || !l.PerSubject {
		t.Fatalf("rate limit: %+v", p.RateLimit)
	}
	if l := cfg.Server.AnonymousRateLimit; l == nil || l.RequestsPerSecond != 5 || l.Burst != 5 {
		t.Fatalf("anonymous rate limit: %+v", l)
	}
	s := cfg.Server.S3.STS
	if s == nil || len(s.SealKeys) != 1 || s.MaxDuration != 2*time.Hour || s.DefaultDuration != time.Hour {
		t.Fatalf("sts: %+v", s)
	}
}

func TestIdentityErrors(t *testing.T) {
	env := config.Options{LookupEnv: func(k string) (string, bool) { return strings.Repeat("k", 40), k == "SEAL" }}
	cases := []struct {
		name, from, to string
		want           []string
	}{
		{"http issuer elsewhere", `"https://login.example.org/realms/x"`, `"http://login.example.org"`, []string{"Invalid issuer", "must use https"}},
		{"HMAC allowed", `leeway   = "10s"`, `algorithms = ["RS256", "HS256"]`, []string{"Refused algorithm", "HS256"}},
		{"none allowed", `leeway   = "10s"`, `algorithms = ["none"]`, []string{"Refused algorithm"}},
		{"undeclared provider", `identity_provider.corp`, `identity_provider.corb`, []string{"undeclared identity provider", `Did you mean "corp"`}},
		{"no claims", `claims            = { groups = "analysts", "realm_access.roles" = "reader" }`, ``, []string{"Principal without claims", "claims = {}"}},
		{"zero rate", `requests_per_second = 50`, `requests_per_second = 0`, []string{"Invalid requests_per_second"}},
		{"bad per", `per                 = "subject"`, `per = "user"`, []string{"Invalid per"}},
		{"seal key in a template", `seal_keys    = [var.seal]`, `seal_keys = ["${var.seal}"]`, nil},
		{"seal key in the file", `seal_keys    = [var.seal]`, `seal_keys = ["0123456789abcdef0123456789abcdef"]`, []string{"Seal key in the file"}},
		{"duration too short", `max_duration = "2h"`, `max_duration = "1m"`, []string{"Invalid max_duration"}},
		{"default past max", `max_duration = "2h"`, `max_duration = "30m"`, []string{"default_duration (1h0m0s) is longer than max_duration"}},
		{"two providers of one issuer", `principal "analysts" {`, `identity_provider "again" {
  issuer   = "https://login.example.org/realms/x"
  audience = "cli"
}
principal "analysts" {`, []string{"Issuer of two identity providers", "list both audiences"}},
		{"audience empty", `audience = ["zarrgw", "zarrgw-cli"]`, `audience = []`, []string{"Invalid audience"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := strings.Replace(identitySrc, c.from, c.to, 1)
			if src == identitySrc {
				t.Fatalf("%q not in the source", c.from)
			}
			cfg, diags := parse(t, src, env)
			errs := errorsOf(diags)
			if len(c.want) == 0 {
				if len(errs) != 0 {
					t.Fatalf("unexpected errors:\n%s", render(cfg, diags))
				}
				return
			}
			if len(errs) != 1 {
				t.Fatalf("want one error, got:\n%s", render(cfg, diags))
			}
			text := errs[0].Summary + ": " + errs[0].Detail
			for _, w := range c.want {
				if !strings.Contains(text, w) {
					t.Errorf("error %q lacks %q", text, w)
				}
			}
		})
	}
}

// A short seal key is refused without showing it.
func TestShortSealKeyNotShown(t *testing.T) {
	cfg, diags := parse(t, identitySrc, config.Options{LookupEnv: func(k string) (string, bool) { return "short-seal-key", k == "SEAL" }})
	text := render(cfg, diags)
	if !strings.Contains(text, "Seal key too short") || strings.Contains(text, "short-seal-key") {
		t.Fatalf("diagnostics:\n%s", text)
	}
}
