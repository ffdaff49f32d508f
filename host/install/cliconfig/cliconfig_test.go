package cliconfig

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zarrgw/zarrgw/host/install/pluginsource"
	"github.com/zarrgw/zarrgw/host/runtime/pluginpkg"
)

func env(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

func writeFile(t *testing.T, src string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "cli.hcl")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// The documented example reads as it says: the cache directory with $HOME
// expanded, the methods in order with their patterns, the overrides.
func TestExample(t *testing.T) {
	path := writeFile(t, `plugin_cache_dir = "$HOME/.cache/zarrgw/plugins"

plugin_installation {
  network_mirror {
    url     = "https://plugins.example.org/"
    exclude = ["example.org/acme/*"]
  }
  filesystem_mirror {
    path    = "mirror"
    include = ["example.org/*/*"]
  }
  dev_overrides = {
    "example.org/acme/xor" = "~/src/xor/bin"
  }
}
`)
	cfg, err := LoadFile(path, env(map[string]string{"HOME": "/home/me"}))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.CacheDir != "/home/me/.cache/zarrgw/plugins" || cfg.DevOverrides["example.org/acme/xor"] != "/home/me/src/xor/bin" || len(cfg.Sources) != 2 {
		t.Fatalf("%+v", cfg)
	}
	if _, ok := cfg.Sources[0].Source.(*pluginsource.NetMirror); !ok {
		t.Errorf("first source %v, want the network mirror", cfg.Sources[0])
	}
	if fs, ok := cfg.Sources[1].Source.(pluginsource.FSMirror); !ok || fs.Dir != filepath.Join(filepath.Dir(path), "mirror") {
		t.Errorf("second source %v, want the filesystem mirror beside the file", cfg.Sources[1])
	}
	xor := pluginpkg.Address{Host: "example.org", Namespace: "acme", Type: "xor"}
	other := pluginpkg.Address{Host: "example.org", Namespace: "other", Type: "zip"}
	if cfg.Sources[0].Allows(xor) || !cfg.Sources[0].Allows(other) || !cfg.Sources[1].Allows(xor) {
		t.Error("include and exclude patterns not applied")
	}
	cfg, err = LoadFile(path, env(map[string]string{"HOME": "/home/me", CacheDirEnv: "/tmp/cache"}))
	if err != nil || cfg.CacheDir != "/tmp/cache" {
		t.Errorf("%s does not win: %q %v", CacheDirEnv, cfg.CacheDir, err)
	}
}

// Mistakes are errors with the file and line.
func TestErrors(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"plugin_installation {\n  network_mirror {\n    url = \"http://mirror.example.org/\"\n  }\n}\n", ":3,"},
		{"plugin_installation {\n  filesystem_mirror {\n    include = [\"a/b\"]\n    path = \"x\"\n  }\n}\n", ":3,"},
		{"plugin_installation {\n  filesystem_mirror {\n  }\n}\n", `"path" is required`},
		{"plugin_cachedir = \"x\"\n", "plugin_cachedir"},
		{"x = " + strings.Repeat("[", 80000) + strings.Repeat("]", 80000) + "\n", "nest"}, // not a stack overflow
	} {
		_, err := LoadFile(writeFile(t, c.src), env(nil))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.src, err, c.want)
		}
	}
}

// Without a file, or without a plugin_installation block, the implied
// filesystem mirror is the source, if it exists; a file the environment
// names must exist.
func TestDefaults(t *testing.T) {
	home := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", home)
	t.Setenv("HOME", home)
	cfg, err := Load(env(nil))
	if err != nil || len(cfg.Sources) != 0 || cfg.Filename != "" {
		t.Fatalf("%+v %v", cfg, err)
	}
	implied, _ := ImpliedMirror()
	if err := os.MkdirAll(implied, 0o755); err != nil {
		t.Fatal(err)
	}
	cfg, err = Load(env(nil))
	if err != nil || len(cfg.Sources) != 1 || cfg.Sources[0].String() != "filesystem mirror "+implied {
		t.Fatalf("%+v %v", cfg, err)
	}
	def, _ := DefaultFile()
	if err := os.MkdirAll(filepath.Dir(def), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(def, []byte(`plugin_cache_dir = "cache"`), 0o644)
	cfg, err = Load(env(nil))
	if err != nil || cfg.Filename != def || cfg.CacheDir != filepath.Join(filepath.Dir(def), "cache") || len(cfg.Sources) != 1 {
		t.Fatalf("%+v %v", cfg, err)
	}
	if _, err := Load(env(map[string]string{FileEnv: filepath.Join(home, "missing.hcl")})); err == nil {
		t.Error("a missing file named by the environment accepted")
	}
}
