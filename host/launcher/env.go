package launcher

import (
	"os"
	"strings"
)

// InheritedEnv names the host's environment variables every plugin gets (a
// name ending in "*" is a prefix): what a program needs to run, find its
// files and format text, none of them a secret. go-plugin adds its own
// (the handshake cookie, protocol versions, the TLS certificate), and the
// launcher the log level. Anything else, such as cloud credentials, reaches
// a plugin only through its Spec's Env, or with Spec.InheritEnv.
var InheritedEnv = []string{
	"PATH", "HOME", "USER", "TMPDIR", "TZ", "LANG", "LANGUAGE", "LC_*",
	"SSL_CERT_FILE", "SSL_CERT_DIR",
	"GOTRACEBACK", "GODEBUG", "GOMAXPROCS", "GOMEMLIMIT", "GOGC",
	"SYSTEMROOT", "TEMP", "TMP", // Windows
}

// inherited returns the entries of environ ("NAME=value") whose names
// InheritedEnv lists.
func inherited(environ []string) []string {
	var out []string
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		if allowedEnv(name) {
			out = append(out, kv)
		}
	}
	return out
}

func allowedEnv(name string) bool {
	for _, a := range InheritedEnv {
		if prefix, ok := strings.CutSuffix(a, "*"); ok && strings.HasPrefix(name, prefix) || a == name {
			return true
		}
	}
	return false
}

// environment is a plugin's environment: the inherited variables (or the
// host's whole environment), then the log level, then spec's own, which
// win over both.
func (p *Plugin) environment() []string {
	env := inherited(os.Environ())
	if p.spec.InheritEnv {
		env = os.Environ()
	}
	env = append(env, pluginapiLogLevel(p))
	for k, v := range p.spec.Env {
		env = append(env, k+"="+v)
	}
	return env
}
