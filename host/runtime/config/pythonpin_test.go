package config_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"

	"github.com/zarrgw/zarrgw/host/runtime/config"
	"github.com/zarrgw/zarrgw/host/runtime/pluginpkg"
)

// A Python plugin given by path is pinned by its script and by the Python
// files beside it: "plugins lock" records both (modules = "h1:..."),
// loading takes both, and validate's check finds a module changed since.
// A lock entry of the script alone (as earlier versions wrote) is an error
// saying how to pin them; so is a plugin block's sha256 alone, which may
// be joined by modules.
func TestPythonPluginPins(t *testing.T) {
	dir, cfgPath, binPath := writeConfig(t, pluginSrc)
	if err := os.WriteFile(binPath, []byte("#!/usr/bin/python3\nimport codec_module\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	module := filepath.Join(filepath.Dir(binPath), "codec_module.py")
	if err := os.WriteFile(module, []byte("KEY = 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	want, _, err := pluginpkg.HashPython(filepath.Dir(binPath))
	if err != nil {
		t.Fatal(err)
	}
	opts := config.Options{Catalog: testCatalog(), LookupEnv: noEnv}
	var out strings.Builder
	lock, _, err := lockPlugins(cfgPath, opts, &out)
	if err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	if e := lock.Plugins["example.org/acme/codec"]; e.SHA256 != fileSum(t, binPath) || e.Modules != want {
		t.Fatalf("lock entry %+v, want modules %s", e, want)
	}
	written, _ := os.ReadFile(filepath.Join(dir, "config.lock.hcl"))
	if !strings.Contains(string(written), `modules = "`+want+`"`) {
		t.Errorf("lock file:\n%s", written)
	}
	cfg, diags := config.LoadWith(cfgPath, opts)
	if diags.HasErrors() || cfg.Plugins[0].Modules != want {
		t.Fatalf("loaded %+v:\n%s", cfg.Plugins[0], render(cfg, diags))
	}
	if d := config.VerifyPlugins(cfg); len(d) != 0 {
		t.Fatalf("verify: %v", d)
	}
	if err := os.WriteFile(module, []byte("KEY = 2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	d := config.VerifyPlugins(cfg)
	if !d.HasErrors() || !strings.Contains(d[0].Detail, want) || !strings.Contains(d[0].Detail, filepath.Dir(binPath)) {
		t.Fatalf("verify after a module changed: %v", d)
	}

	// The entry of an earlier version: sha256 alone.
	entry := lock.Plugins["example.org/acme/codec"]
	entry.Modules = ""
	lock.Plugins["example.org/acme/codec"] = entry
	if err := config.WriteLock(filepath.Join(dir, "config.lock.hcl"), lock); err != nil {
		t.Fatal(err)
	}
	cfg, diags = config.LoadWith(cfgPath, opts)
	wantPinError(t, cfg, diags, "not pinned", "Python program", "zarrgw plugins lock -c "+cfgPath)

	// Pinned in the block: sha256 alone, then with modules.
	os.Remove(filepath.Join(dir, "config.lock.hcl"))
	now, _, _ := pluginpkg.HashPython(filepath.Dir(binPath))
	block := func(extra string) string {
		return `plugin "example.org/acme/codec" {
  path   = "bin/codec"
  sha256 = "` + fileSum(t, binPath) + `"
` + extra + `}
`
	}
	if err := os.WriteFile(cfgPath, []byte(block("")), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, diags = config.LoadWith(cfgPath, opts)
	wantPinError(t, cfg, diags, "not pinned", `modules = "`+now+`"`)
	if err := os.WriteFile(cfgPath, []byte(block(`  modules = "`+now+`"`+"\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, diags = config.LoadWith(cfgPath, opts)
	if diags.HasErrors() || cfg.Plugins[0].Modules != now {
		t.Fatalf("block with both pins: %+v\n%s", cfg.Plugins[0], render(cfg, diags))
	}
}

// wantPinError checks that diags hold one error, on the plugin block's
// first line, mentioning each of want.
func wantPinError(t *testing.T, cfg *config.Config, diags hcl.Diagnostics, want ...string) {
	t.Helper()
	errs := errorsOf(diags)
	if len(errs) != 1 || errs[0].Subject == nil || errs[0].Subject.Start.Line != 1 {
		t.Fatalf("want 1 error on line 1:\n%s", render(cfg, diags))
	}
	for _, w := range want {
		if text := errs[0].Summary + "\n" + errs[0].Detail; !strings.Contains(text, w) {
			t.Errorf("error does not mention %q:\n%s", w, text)
		}
	}
}
