package launcher

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zarrgw/zarrgw/tests/support/servers"
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
// host's go, but is named for itself in them, and gets the collector's
// headers (its credentials) only when its Spec asks; its block's env
// still wins, and other variables stay the host's.
func TestPluginEnvironmentCarriesTelemetry(t *testing.T) {
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://collector:4318")
	t.Setenv("OTEL_EXPORTER_OTLP_HEADERS", "api-key=k")
	t.Setenv("OTEL_EXPORTER_OTLP_TRACES_HEADERS", "api-key=t")
	t.Setenv("OTEL_SERVICE_NAME", "gateway")
	t.Setenv("ZARRGW_TEST_SECRET", "hunter2")
	l := New(Options{})
	env := envMap(newPlugin(l, Spec{Name: "example.org/acme/fs"}).environment())
	for name, want := range map[string]string{
		"OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318",
		"OTEL_SERVICE_NAME":           "example.org/acme/fs",
	} {
		if env[name] != want {
			t.Errorf("plugin's %s = %q, want %q", name, env[name], want)
		}
	}
	for _, name := range []string{"ZARRGW_TEST_SECRET", "OTEL_EXPORTER_OTLP_HEADERS", "OTEL_EXPORTER_OTLP_TRACES_HEADERS"} {
		if v, ok := env[name]; ok {
			t.Errorf("the host's %s reached the plugin: %q", name, v)
		}
	}
	env = envMap(newPlugin(l, Spec{Name: "example.org/acme/fs", OTELHeaders: true}).environment())
	if env["OTEL_EXPORTER_OTLP_HEADERS"] != "api-key=k" || env["OTEL_EXPORTER_OTLP_TRACES_HEADERS"] != "api-key=t" {
		t.Errorf("with OTELHeaders: %q, %q", env["OTEL_EXPORTER_OTLP_HEADERS"], env["OTEL_EXPORTER_OTLP_TRACES_HEADERS"])
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

// Every plugin runs Python without writing bytecode into its installed
// package (whose h1: it would change) and without a user's site-packages,
// and without the host's PYTHONPATH and PYTHONHOME; a plugin block's env
// may still set any of them.
func TestPluginEnvironmentForPython(t *testing.T) {
	t.Setenv("PYTHONPATH", "/home/me/lib/python")
	t.Setenv("PYTHONHOME", "/opt/other-python")
	t.Setenv("PYTHONDONTWRITEBYTECODE", "")
	t.Setenv("PYTHONNOUSERSITE", "")
	for _, name := range []string{"PYTHONPATH", "PYTHONHOME"} {
		if allowedEnv(name) {
			t.Errorf("InheritedEnv lists %s", name)
		}
	}
	l := New(Options{})
	env := envMap(newPlugin(l, Spec{Name: "example.org/acme/xorpy"}).environment())
	for name, want := range map[string]string{"PYTHONDONTWRITEBYTECODE": "1", "PYTHONNOUSERSITE": "1"} {
		if env[name] != want {
			t.Errorf("plugin's %s = %q, want %q", name, env[name], want)
		}
	}
	for _, name := range []string{"PYTHONPATH", "PYTHONHOME"} {
		if v, ok := env[name]; ok {
			t.Errorf("the host's %s reached the plugin: %q", name, v)
		}
	}
	// with the host's whole environment, Python still writes no bytecode
	env = envMap(newPlugin(l, Spec{Name: "p", InheritEnv: true}).environment())
	if env["PYTHONDONTWRITEBYTECODE"] != "1" || env["PYTHONNOUSERSITE"] != "1" {
		t.Errorf("with InheritEnv: PYTHONDONTWRITEBYTECODE %q, PYTHONNOUSERSITE %q", env["PYTHONDONTWRITEBYTECODE"], env["PYTHONNOUSERSITE"])
	}
	spec := Spec{Name: "p", Env: map[string]string{"PYTHONNOUSERSITE": "", "PYTHONPATH": "/srv/lib"}}
	env = envMap(newPlugin(l, spec).environment())
	if env["PYTHONNOUSERSITE"] != "" || env["PYTHONPATH"] != "/srv/lib" {
		t.Errorf("the plugin block's env lost: PYTHONNOUSERSITE %q, PYTHONPATH %q", env["PYTHONNOUSERSITE"], env["PYTHONPATH"])
	}
}

// Python itself, run as a plugin's script is (the system's python3, with
// the plugin's environment), writes no __pycache__ beside the module the
// script imports and leaves the user's site-packages out; with the same
// environment less pythonEnv, it writes one, so the check can fail.
func TestPluginEnvironmentKeepsPythonFromWriting(t *testing.T) {
	const python = "/usr/bin/python3"
	if _, err := os.Stat(python); err != nil {
		servers.Unavailable(t, "no %s (%v): the run of Python under a plugin's environment is not checked", python, err)
	}
	run := func(env []string) (pycache bool, out string) {
		t.Helper()
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, "plugin.py"), []byte("import site, xor_codec\nprint(site.ENABLE_USER_SITE)\n"), 0o755)
		os.WriteFile(filepath.Join(dir, "xor_codec.py"), []byte("KEY = 0x5a\n"), 0o644)
		cmd := exec.Command(python, filepath.Join(dir, "plugin.py"))
		cmd.Env = env
		b, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v: %s", python, err, b)
		}
		_, err = os.Stat(filepath.Join(dir, "__pycache__"))
		return err == nil, strings.TrimSpace(string(b))
	}
	env := newPlugin(New(Options{}), Spec{Name: "example.org/acme/xorpy"}).environment()
	if pycache, userSite := run(env); pycache || userSite != "False" {
		t.Errorf("under the plugin's environment: __pycache__ written %v, user site-packages enabled %s", pycache, userSite)
	}
	var without []string
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if name != "PYTHONDONTWRITEBYTECODE" && name != "PYTHONNOUSERSITE" && name != "PYTHONPYCACHEPREFIX" {
			without = append(without, kv)
		}
	}
	if pycache, userSite := run(without); !pycache || userSite != "True" {
		t.Errorf("without pythonEnv: __pycache__ written %v, user site-packages enabled %s; want both, else the check proves nothing", pycache, userSite)
	}
}

// Python run with a plugin's environment imports a module from its
// source, never from bytecode found in a __pycache__ beside it: here an
// "unchecked" .pyc compiled from other source, which Python would
// otherwise run whatever the source says (so a pinned module's hash would
// pin nothing). Without PYTHONPYCACHEPREFIX it does run it, so the check
// can fail.
func TestPluginEnvironmentIgnoresPlantedBytecode(t *testing.T) {
	const python = "/usr/bin/python3"
	if _, err := os.Stat(python); err != nil {
		servers.Unavailable(t, "no %s (%v): planted bytecode is not checked", python, err)
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "plugin.py"), []byte("import xor_codec\nprint(xor_codec.KEY)\n"), 0o755)
	os.WriteFile(filepath.Join(dir, "xor_codec.py"), []byte("KEY = 42\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "planted.py"), []byte("KEY = 666\n"), 0o644)
	plant := exec.Command(python, "-c", `import os, py_compile, sys
os.makedirs("__pycache__", exist_ok=True)
py_compile.compile("planted.py", cfile="__pycache__/xor_codec.%s.pyc" % sys.implementation.cache_tag,
                   invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH, doraise=True)`)
	plant.Dir = dir
	if out, err := plant.CombinedOutput(); err != nil {
		t.Fatalf("planting bytecode: %v: %s", err, out)
	}
	run := func(env []string) string {
		t.Helper()
		cmd := exec.Command(python, filepath.Join(dir, "plugin.py"))
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v: %s", python, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	env := newPlugin(New(Options{}), Spec{Name: "example.org/acme/xorpy"}).environment()
	if got := run(env); got != "42" {
		t.Errorf("under the plugin's environment the module's KEY is %s, want the source's 42", got)
	}
	var without []string
	for _, kv := range env {
		if !strings.HasPrefix(kv, "PYTHONPYCACHEPREFIX=") {
			without = append(without, kv)
		}
	}
	if got := run(without); got != "666" {
		t.Errorf("without PYTHONPYCACHEPREFIX the module's KEY is %s, want the planted 666, else the check proves nothing", got)
	}
}
