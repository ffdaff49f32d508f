package telemetry

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func envOf(vars map[string]string) func(string) string {
	return func(name string) string { return vars[name] }
}

// Traces are off unless an exporter or an endpoint is asked for, and
// OTEL_SDK_DISABLED or "none" turns them off whatever else is set.
func TestFromEnvOnOff(t *testing.T) {
	endpoint := "http://127.0.0.1:4318"
	for _, c := range []struct {
		vars map[string]string
		on   bool
	}{
		{nil, false},
		{map[string]string{"OTEL_SERVICE_NAME": "x", "OTEL_TRACES_SAMPLER": "always_on"}, false},
		{map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": endpoint}, true},
		{map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": endpoint + "/v1/traces"}, true},
		{map[string]string{"OTEL_TRACES_EXPORTER": "otlp"}, true},
		{map[string]string{"OTEL_TRACES_EXPORTER": " OTLP "}, true},
		{map[string]string{"OTEL_TRACES_EXPORTER": "none", "OTEL_EXPORTER_OTLP_ENDPOINT": endpoint}, false},
		{map[string]string{"OTEL_SDK_DISABLED": "TRUE", "OTEL_TRACES_EXPORTER": "otlp"}, false},
		{map[string]string{"OTEL_SDK_DISABLED": "false", "OTEL_TRACES_EXPORTER": "otlp"}, true},
		// only what decides is read when off: a bad sampler cannot matter
		{map[string]string{"OTEL_TRACES_SAMPLER": "sometimes"}, false},
	} {
		cfg, err := FromEnv(envOf(c.vars))
		if err != nil || cfg.Enabled != c.on {
			t.Errorf("%v: enabled %v, %v; want %v", c.vars, cfg.Enabled, err, c.on)
		}
	}
}

func TestFromEnvProtocolAndPropagators(t *testing.T) {
	on := map[string]string{"OTEL_TRACES_EXPORTER": "otlp"}
	with := func(k, v string) map[string]string {
		m := map[string]string{k: v}
		for k, v := range on {
			m[k] = v
		}
		return m
	}
	cfg, err := FromEnv(envOf(on))
	if err != nil || cfg.Protocol != ProtocolHTTPProtobuf || !slices.Equal(cfg.Propagators, []string{"tracecontext", "baggage"}) {
		t.Errorf("defaults: %+v, %v", cfg, err)
	}
	if cfg, _ := FromEnv(envOf(with("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc"))); cfg.Protocol != ProtocolGRPC {
		t.Errorf("OTEL_EXPORTER_OTLP_PROTOCOL=grpc: %q", cfg.Protocol)
	}
	both := with("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc")
	both["OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"] = "http/protobuf"
	if cfg, _ := FromEnv(envOf(both)); cfg.Protocol != ProtocolHTTPProtobuf {
		t.Errorf("the traces' own protocol does not win: %q", cfg.Protocol)
	}
	if cfg, _ := FromEnv(envOf(with("OTEL_PROPAGATORS", "none"))); len(cfg.Propagators) != 0 {
		t.Errorf("OTEL_PROPAGATORS=none: %v", cfg.Propagators)
	}
	if cfg, _ := FromEnv(envOf(with("OTEL_PROPAGATORS", "tracecontext"))); !slices.Equal(cfg.Propagators, []string{"tracecontext"}) {
		t.Errorf("OTEL_PROPAGATORS=tracecontext: %v", cfg.Propagators)
	}
}

// A value that cannot be used is an error naming the variable, and never
// quoting a header's value.
func TestFromEnvRefuses(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "missing.pem")
	for _, c := range []struct {
		name, value string
		extra       map[string]string
	}{
		{"OTEL_SDK_DISABLED", "yes", nil},
		{"OTEL_TRACES_EXPORTER", "console", nil},
		{"OTEL_TRACES_EXPORTER", "otlp,none", nil},
		{"OTEL_TRACES_EXPORTER", "zipkin", nil},
		{"OTEL_EXPORTER_OTLP_PROTOCOL", "http/json", nil},
		{"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "udp", nil},
		{"OTEL_EXPORTER_OTLP_ENDPOINT", "collector:4317", nil},
		{"OTEL_EXPORTER_OTLP_ENDPOINT", "ftp://collector", nil},
		{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "http://", nil},
		{"OTEL_EXPORTER_OTLP_ENDPOINT", "unix:///run/otel.sock", nil}, // over http
		{"OTEL_EXPORTER_OTLP_TIMEOUT", "10s", nil},
		{"OTEL_EXPORTER_OTLP_TRACES_INSECURE", "1", nil},
		{"OTEL_EXPORTER_OTLP_COMPRESSION", "zstd", nil},
		{"OTEL_EXPORTER_OTLP_CERTIFICATE", missing, nil},
		{"OTEL_BSP_SCHEDULE_DELAY", "5s", nil},
		{"OTEL_BSP_MAX_QUEUE_SIZE", "0", nil},
		{"OTEL_TRACES_SAMPLER", "sometimes", nil},
		{"OTEL_TRACES_SAMPLER_ARG", "1.5", map[string]string{"OTEL_TRACES_SAMPLER": "traceidratio"}},
		{"OTEL_TRACES_SAMPLER_ARG", "half", map[string]string{"OTEL_TRACES_SAMPLER": "parentbased_traceidratio"}},
		{"OTEL_PROPAGATORS", "b3", nil},
		{"OTEL_EXPORTER_OTLP_HEADERS", "api-key=s3cr3t,broken", nil},
		{"OTEL_EXPORTER_OTLP_HEADERS", "api key=s3cr3t", nil},
		{"OTEL_EXPORTER_OTLP_TRACES_HEADERS", "api-key=s3cr3t%zz", nil},
	} {
		vars := map[string]string{"OTEL_TRACES_EXPORTER": "otlp", c.name: c.value}
		for k, v := range c.extra {
			vars[k] = v
		}
		_, err := FromEnv(envOf(vars))
		switch {
		case err == nil:
			t.Errorf("%s=%s accepted", c.name, c.value)
		case !strings.Contains(err.Error(), c.name):
			t.Errorf("%s=%s: %v does not name the variable", c.name, c.value, err)
		case strings.Contains(err.Error(), "s3cr3t"):
			t.Errorf("%s: the error quotes a header's value: %v", c.name, err)
		}
	}
}

// What the specification allows passes: a unix socket for gRPC, headers
// with encoded values, a ratio of 0, certificate files that exist.
func TestFromEnvAccepts(t *testing.T) {
	pem := filepath.Join(t.TempDir(), "ca.pem")
	os.WriteFile(pem, []byte("not checked here; the exporter reads it"), 0o600)
	for _, vars := range []map[string]string{
		{"OTEL_EXPORTER_OTLP_PROTOCOL": "grpc", "OTEL_EXPORTER_OTLP_ENDPOINT": "unix:///run/otel.sock"},
		{"OTEL_EXPORTER_OTLP_ENDPOINT": "https://collector.example:4318/base", "OTEL_EXPORTER_OTLP_HEADERS": "api-key=a%20b, x-team = data"},
		{"OTEL_TRACES_EXPORTER": "otlp", "OTEL_TRACES_SAMPLER": "TraceIdRatio", "OTEL_TRACES_SAMPLER_ARG": "0"},
		{"OTEL_TRACES_EXPORTER": "otlp", "OTEL_TRACES_SAMPLER": "always_off", "OTEL_TRACES_SAMPLER_ARG": "ignored"},
		{"OTEL_TRACES_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_TRACES_CERTIFICATE": pem, "OTEL_EXPORTER_OTLP_TIMEOUT": "500", "OTEL_BSP_SCHEDULE_DELAY": "100"},
	} {
		if cfg, err := FromEnv(envOf(vars)); err != nil || !cfg.Enabled {
			t.Errorf("%v: %+v, %v", vars, cfg, err)
		}
	}
}

// With no endpoint set, the exporter sends in plain HTTP to the
// specification's default (http://localhost:4318), unless an INSECURE
// variable decides; an endpoint's scheme decides for itself.
func TestFromEnvDefaultEndpoint(t *testing.T) {
	for _, c := range []struct {
		vars map[string]string
		want bool
	}{
		{map[string]string{"OTEL_TRACES_EXPORTER": "otlp"}, true},
		{map[string]string{"OTEL_TRACES_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}, true},
		{map[string]string{"OTEL_TRACES_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_INSECURE": "false"}, false},
		{map[string]string{"OTEL_TRACES_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_TRACES_INSECURE": "true"}, false},
		{map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "https://collector:4318"}, false},
	} {
		if cfg, err := FromEnv(envOf(c.vars)); err != nil || cfg.DefaultEndpoint != c.want {
			t.Errorf("%v: default endpoint %v, %v; want %v", c.vars, cfg.DefaultEndpoint, err, c.want)
		}
	}
}
