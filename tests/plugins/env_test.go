package plugins

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"testing"

	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/host/runtime/config"
	"github.com/zarrgw/zarrgw/host/runtime/launcher"
	"github.com/zarrgw/zarrgw/host/runtime/registry"
	"github.com/zarrgw/zarrgw/host/runtime/stack"
	"github.com/zarrgw/zarrgw/pluginapi"
)

// A plugin gets the variables of its block's env and the few every plugin
// gets, never the host's secrets, nor the OTLP collector's headers (its
// credentials) unless its block says otel_headers = true; inherit_env =
// true hands it the host's whole environment. The plugin here serves a
// store whose keys are its environment variables, declared in HCL and
// opened through a dataset.
func TestPluginEnvironment(t *testing.T) {
	t.Setenv("ZARRGW_TEST_SECRET", "hunter2")
	t.Setenv("OTEL_EXPORTER_OTLP_HEADERS", "x-api-key=collector-secret")
	t.Setenv("OTEL_EXPORTER_OTLP_TRACES_HEADERS", "x-api-key=traces-secret")
	t.Setenv("OTEL_EXPORTER_OTLP_COMPRESSION", "gzip")
	env := pluginEnvironment(t, `env = { A = "1" }`)
	for name, want := range map[string]string{"A": "1", "PATH": "*", pluginapi.LogLevelEnv: "*", "OTEL_EXPORTER_OTLP_COMPRESSION": "gzip"} {
		got, ok := env(name)
		if !ok || (want != "*" && got != want) {
			t.Errorf("plugin's %s = %q (set: %v), want %q", name, got, ok, want)
		}
	}
	for _, name := range []string{"ZARRGW_TEST_SECRET", "OTEL_EXPORTER_OTLP_HEADERS", "OTEL_EXPORTER_OTLP_TRACES_HEADERS"} {
		if got, ok := env(name); ok {
			t.Errorf("the host's %s reached the plugin: %q", name, got)
		}
	}

	env = pluginEnvironment(t, `otel_headers = true`)
	for name, want := range map[string]string{"OTEL_EXPORTER_OTLP_HEADERS": "x-api-key=collector-secret", "OTEL_EXPORTER_OTLP_TRACES_HEADERS": "x-api-key=traces-secret"} {
		if got, ok := env(name); got != want {
			t.Errorf("with otel_headers, the plugin's %s = %q (set: %v)", name, got, ok)
		}
	}
	if got, ok := env("ZARRGW_TEST_SECRET"); ok {
		t.Errorf("with otel_headers, the host's secret reached the plugin: %q", got)
	}

	env = pluginEnvironment(t, `inherit_env = true`)
	if got, ok := env("ZARRGW_TEST_SECRET"); !ok || got != "hunter2" {
		t.Errorf("with inherit_env, the plugin's ZARRGW_TEST_SECRET = %q (set: %v)", got, ok)
	}
}

// pluginEnvironment runs the test plugin's testenv store, declared with
// the given line in its plugin block, and returns a lookup of the
// plugin's environment.
func pluginEnvironment(t *testing.T, line string) func(string) (string, bool) {
	t.Helper()
	sum, err := launcher.Checksum(testPluginBin)
	if err != nil {
		t.Fatal(err)
	}
	src := fmt.Sprintf(`plugin "example.org/test/env" {
  path   = %q
  sha256 = %q
  args   = ["env"]
  %s
}
store "testenv" "here" {}
dataset "env" {
  store = store.testenv.here
}
`, testPluginBin, sum, line)
	ctx := context.Background()
	logger := slog.New(slog.DiscardHandler)
	set := registry.Bundled()
	cfg, diags := config.ParseWith([]byte(src), "env.hcl", config.Options{Catalog: set.Catalog(), Probe: stack.Probe(ctx, logger)})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	h, err := stack.Start(cfg, set, logger)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	ds, err := h.Dataset(ctx, "env")
	if err != nil {
		t.Fatal(err)
	}
	return func(name string) (string, bool) {
		v, err := ds.Store.Get(ctx, name, store.ByteRange{})
		if errors.Is(err, store.ErrNotFound) {
			return "", false
		}
		if err != nil {
			t.Fatal(err)
		}
		return string(v.Data), true
	}
}
