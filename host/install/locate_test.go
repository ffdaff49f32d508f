package install

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/go-version"

	"github.com/zarrgw/zarrgw/host/install/cliconfig"
	"github.com/zarrgw/zarrgw/host/runtime/config"
	"github.com/zarrgw/zarrgw/host/runtime/pluginpkg"
)

// An installed package is found where init puts it and vouched for by the
// lock file's h1: hash; the executable's checksum is that of the bytes
// hashed. A changed package, or none, is refused with what to run.
func TestLocatorInstalled(t *testing.T) {
	cfgDir := t.TempDir()
	plat := pluginpkg.Platform{OS: "linux", Arch: "amd64"}
	a := pluginpkg.Address{Host: "example.org", Namespace: "acme", Type: "xor"}
	v := version.Must(version.NewVersion("1.3.0"))
	dir := packageDir(Dir(cfgDir), a, v, plat)
	exe := filepath.Join(dir, pluginpkg.Executable(a.Type, v, plat))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(exe, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	h1, err := pluginpkg.HashDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	l := Locator{ConfigFile: filepath.Join(cfgDir, "zarrgw.hcl"), Platform: plat}
	p := config.Plugin{Source: a.String(), Constraints: "~> 1.2", Version: "1.3.0", Hashes: []string{h1}}
	loc, err := l.Installed(p)
	sum, _ := pluginpkg.FileSHA256(exe)
	if err != nil || loc.Path != exe || loc.SHA256 != sum {
		t.Fatalf("%+v %v (sha256 %s)", loc, err, sum)
	}
	os.WriteFile(exe, []byte("#!/bin/sh\necho changed\n"), 0o755)
	if _, err := l.Installed(p); err == nil || !strings.Contains(err.Error(), h1) || !strings.Contains(err.Error(), "zarrgw init -c") {
		t.Errorf("changed package: %v", err)
	}
	p.Version = "1.4.0"
	if _, err := l.Installed(p); err == nil || !strings.Contains(err.Error(), "not installed") {
		t.Errorf("missing version: %v", err)
	}
}

// A development override is the executable named for the plugin's type
// in the directory the CLI configuration names.
func TestLocatorOverride(t *testing.T) {
	build := t.TempDir()
	os.WriteFile(filepath.Join(build, "README"), nil, 0o644)
	exe := filepath.Join(build, "zarrgw-plugin-xor_v0.0.1-dev")
	os.WriteFile(exe, []byte("x"), 0o755)
	l := Locator{CLI: &cliconfig.Config{Filename: "/home/me/cli.hcl", DevOverrides: map[string]string{"example.org/acme/xor": build}}}
	loc, ok, err := l.Override(config.Plugin{Source: "Example.org/acme/xor"})
	if err != nil || !ok || loc.Path != exe || !strings.Contains(loc.From, "/home/me/cli.hcl") {
		t.Fatalf("%+v %v %v", loc, ok, err)
	}
	if _, ok, err := l.Override(config.Plugin{Source: "example.org/acme/zip"}); ok || err != nil {
		t.Errorf("a plugin without an override: %v %v", ok, err)
	}
	os.Remove(exe)
	if _, _, err := l.Override(config.Plugin{Source: "example.org/acme/xor"}); err == nil || !strings.Contains(err.Error(), "zarrgw-plugin-xor") {
		t.Errorf("no executable: %v", err)
	}
}
