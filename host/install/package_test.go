package install

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/go-version"

	"github.com/zarrgw/zarrgw/host/install/pluginsource"
	"github.com/zarrgw/zarrgw/host/runtime/config"
	"github.com/zarrgw/zarrgw/host/runtime/pluginpkg"
)

// A Python plugin is packed with its modules ("zarrgw plugins package
// ENTRY FILE..."), published into a mirror and installed; its lock
// file's h1: covers the modules as well as the script, so every command
// refuses the installed plugin once a module is edited, or once Python
// wrote its bytecode cache into it (what the launcher's
// PYTHONDONTWRITEBYTECODE prevents), as it refuses a changed binary, and
// takes it again when it is as installed.
func TestPackagedModulesAreLocked(t *testing.T) {
	src := t.TempDir()
	script := filepath.Join(src, "plugin.py")
	module := filepath.Join(src, "xor_codec.py")
	pkgInit := filepath.Join(src, "zarrgw_plugin", "__init__.py")
	for path, content := range map[string]string{
		script:  "#!/usr/bin/python3\nimport xor_codec\n",
		module:  "KEY = 0x5a\n",
		pkgInit: "",
		filepath.Join(src, "zarrgw_plugin", "__pycache__", "__init__.cpython-312.pyc"): "bytecode",
	} {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	plat := pluginpkg.Platform{OS: "linux", Arch: "amd64"}
	mirror := t.TempDir()
	zipPath, hashes, err := Package(script, "example.org/acme/xorpy", "1.0.0", plat, mirror, true, module, filepath.Join(src, "zarrgw_plugin"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(zipPath); err != nil {
		t.Fatalf("package %s: %v", zipPath, err)
	}

	a := pluginpkg.Address{Host: "example.org", Namespace: "acme", Type: "xorpy"}
	v := version.Must(version.NewVersion("1.0.0"))
	in := &Installer{Sources: pluginsource.Sources{{Source: pluginsource.FSMirror{Dir: mirror}}}, Platform: plat}
	cfgDir := t.TempDir()
	got, err := in.obtain(context.Background(), Dir(cfgDir), a, v, hashes)
	if err != nil || !slices.Contains(got.hashes, hashes[0]) {
		t.Fatalf("install: %+v %v, want the hashes %v", got, err, hashes)
	}
	installedModule := filepath.Join(got.dir, "xor_codec.py")
	for _, name := range []string{"xor_codec.py", "zarrgw_plugin/__init__.py"} {
		if _, err := os.Stat(filepath.Join(got.dir, filepath.FromSlash(name))); err != nil {
			t.Errorf("installed without %s: %v", name, err)
		}
	}
	if _, err := os.Stat(filepath.Join(got.dir, "zarrgw_plugin", "__pycache__")); err == nil {
		t.Error("the bytecode cache was installed")
	}

	l := Locator{ConfigFile: filepath.Join(cfgDir, "zarrgw.hcl"), Platform: plat}
	p := config.Plugin{Source: a.String(), Constraints: "~> 1.0", Version: "1.0.0", Hashes: hashes}
	exe := filepath.Join(got.dir, pluginpkg.Executable(a.Type, v, plat))
	sum, _ := pluginpkg.FileSHA256(script)
	if loc, err := l.Installed(p); err != nil || loc.Path != exe || loc.SHA256 != sum {
		t.Fatalf("as installed: %+v %v, want %s with the script's SHA-256 %s", loc, err, exe, sum)
	}

	refused := func(what string) {
		t.Helper()
		_, err := l.Installed(p)
		if err == nil || !strings.Contains(err.Error(), "changed after it was installed") || !strings.Contains(err.Error(), hashes[0]) {
			t.Errorf("%s: %v, want it refused as changed", what, err)
		}
	}
	if err := os.WriteFile(installedModule, []byte("KEY = 0x00\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	refused("an edited module")
	if err := os.WriteFile(installedModule, []byte("KEY = 0x5a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Installed(p); err != nil {
		t.Fatalf("the module as installed again: %v", err)
	}
	cache := filepath.Join(got.dir, "__pycache__")
	if err := os.Mkdir(cache, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cache, "xor_codec.cpython-312.pyc"), []byte("bytecode"), 0o644); err != nil {
		t.Fatal(err)
	}
	refused("bytecode written into the package")
	os.RemoveAll(cache)
	if _, err := l.Installed(p); err != nil {
		t.Fatalf("without the bytecode again: %v", err)
	}
}
