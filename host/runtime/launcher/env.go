package launcher

import (
	"os"
	"strings"
)

// InheritedEnv names the host's environment variables every plugin gets (a
// name ending in "*" is a prefix): what a program needs to run, find its
// files and format text, and the OpenTelemetry variables, so that a
// plugin exports its spans where the host exports its own. go-plugin adds
// its own (the handshake cookie, protocol versions, the TLS certificate),
// and the launcher the log level and the plugin's OTEL_SERVICE_NAME.
// Anything else, such as cloud credentials, reaches a plugin only through
// its Spec's Env, or with Spec.InheritEnv.
//
// Of the OTEL_* variables, those naming headers (OTEL_EXPORTER_OTLP_HEADERS
// and its _TRACES_, _METRICS_ and _LOGS_ forms) are left out unless the
// plugin's Spec asks for them (OTELHeaders): they carry a collector's
// credentials, which a plugin needs only if it exports spans itself to a
// collector that asks for them.
//
// A plugin written in Python finds its modules beside its script, in its
// installed package, and nowhere else: PYTHONPATH and PYTHONHOME are not
// inherited (the host's would put a user's modules, or another Python's
// library, before the package's, so that the plugin would run code its
// lock file's h1: does not cover), and every plugin gets pythonEnv.
var InheritedEnv = []string{
	"PATH", "HOME", "USER", "TMPDIR", "TZ", "LANG", "LANGUAGE", "LC_*",
	"SSL_CERT_FILE", "SSL_CERT_DIR",
	"GOTRACEBACK", "GODEBUG", "GOMAXPROCS", "GOMEMLIMIT", "GOGC",
	"OTEL_*",
	"SYSTEMROOT", "TEMP", "TMP", // Windows
}

// pythonEnv is given to every plugin, before its Spec's Env (which may
// override it). PYTHONDONTWRITEBYTECODE: Python would otherwise write
// __pycache__ into the installed package beside the modules it imports,
// changing the package's h1: so that the next command refuses the plugin
// as changed since it was installed. PYTHONPYCACHEPREFIX: nor does it read
// one found there, where bytecode compiled from other sources (an
// "unchecked" .pyc is used whatever the source says) would run instead of
// the pinned modules; the cache is looked for under the null device,
// where nothing can be put. PYTHONNOUSERSITE: a user's site-packages
// (~/.local/lib/pythonX.Y) would otherwise come before what the package
// and the system hold. Programs in other languages ignore all three.
var pythonEnv = []string{"PYTHONDONTWRITEBYTECODE=1", "PYTHONPYCACHEPREFIX=" + os.DevNull, "PYTHONNOUSERSITE=1"}

// serviceNameEnv names a process in its spans; the host's own value would
// name the plugin's spans after the host.
const serviceNameEnv = "OTEL_SERVICE_NAME"

// inherited returns the entries of environ ("NAME=value") whose names
// InheritedEnv lists, less the OTLP headers unless headers.
func inherited(environ []string, headers bool) []string {
	var out []string
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		if allowedEnv(name) && (headers || !otelHeaders(name)) {
			out = append(out, kv)
		}
	}
	return out
}

// otelHeaders reports whether name is one of OpenTelemetry's variables of
// headers to send an OTLP collector: OTEL_EXPORTER_OTLP_HEADERS and its
// per-signal forms (OTEL_EXPORTER_OTLP_TRACES_HEADERS, ...).
func otelHeaders(name string) bool {
	return strings.HasPrefix(name, "OTEL_") && strings.HasSuffix(name, "_HEADERS")
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
// host's whole environment, headers included), then pythonEnv, the log level and the
// plugin's name as the service its spans come from, then spec's own,
// which win over all (exec takes the last of a name).
func (p *Plugin) environment() []string {
	env := inherited(os.Environ(), p.spec.OTELHeaders)
	if p.spec.InheritEnv {
		env = os.Environ()
	}
	env = append(env, pythonEnv...)
	env = append(env, pluginapiLogLevel(p), serviceNameEnv+"="+p.spec.Name)
	for k, v := range p.spec.Env {
		env = append(env, k+"="+v)
	}
	return env
}
