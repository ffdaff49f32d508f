package launcher

import (
	"strings"
	"testing"
)

// envMap reads an environment as exec does: the last of a name wins.
func envMap(env []string) map[string]string {
	m := map[string]string{}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		m[k] = v
	}
	return m
}

// A plugin gets the host's OTEL_* variables, so its spans go where the
// host's go, but is named for itself in them; its block's env still wins,
// and other variables stay the host's.
func TestPluginEnvironmentCarriesTelemetry(t *testing.T) {
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://collector:4318")
	t.Setenv("OTEL_EXPORTER_OTLP_HEADERS", "api-key=k")
	t.Setenv("OTEL_SERVICE_NAME", "gateway")
	t.Setenv("ZARRGW_TEST_SECRET", "hunter2")
	l := New(Options{})
	env := envMap(newPlugin(l, Spec{Name: "example.org/acme/fs"}).environment())
	for name, want := range map[string]string{
		"OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318",
		"OTEL_EXPORTER_OTLP_HEADERS":  "api-key=k",
		"OTEL_SERVICE_NAME":           "example.org/acme/fs",
	} {
		if env[name] != want {
			t.Errorf("plugin's %s = %q, want %q", name, env[name], want)
		}
	}
	if v, ok := env["ZARRGW_TEST_SECRET"]; ok {
		t.Errorf("the host's secret reached the plugin: %q", v)
	}
	// with the host's whole environment, the name is still the plugin's
	env = envMap(newPlugin(l, Spec{Name: "zarrgw/fs", InheritEnv: true}).environment())
	if env["OTEL_SERVICE_NAME"] != "zarrgw/fs" || env["ZARRGW_TEST_SECRET"] != "hunter2" {
		t.Errorf("with InheritEnv: OTEL_SERVICE_NAME %q, ZARRGW_TEST_SECRET %q", env["OTEL_SERVICE_NAME"], env["ZARRGW_TEST_SECRET"])
	}
	env = envMap(newPlugin(l, Spec{Name: "p", Env: map[string]string{"OTEL_SERVICE_NAME": "chosen"}}).environment())
	if env["OTEL_SERVICE_NAME"] != "chosen" {
		t.Errorf("the plugin block's OTEL_SERVICE_NAME lost: %q", env["OTEL_SERVICE_NAME"])
	}
}
