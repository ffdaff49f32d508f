package config_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zarrgw/zarrgw/host/runtime/config"
)

// An fs store's root written relative is the configuration file's
// directory's, in the configuration the store gets too; an absolute one
// is left as written.
func TestFSRootRelativeToConfiguration(t *testing.T) {
	cfg := mustParse(t, `store "fs" "a" {
  root = "data/x"
}
store "fs" "b" {
  root        = "/srv/zarr"
  create_root = true
}
`, config.Options{})
	a, _ := cfg.Store(config.StoreRef{Type: "fs", Name: "a"})
	b, _ := cfg.Store(config.StoreRef{Type: "fs", Name: "b"})
	if a.Root != "/etc/zarrgw/data/x" || string(a.Extension.Config) != `{"root":"/etc/zarrgw/data/x"}` || a.CreateRoot || a.RootRange.Start.Line != 2 {
		t.Errorf("a: %+v %s", a, a.Extension.Config)
	}
	if b.Root != "/srv/zarr" || !b.CreateRoot || string(b.Extension.Config) != `{"create_root":true,"root":"/srv/zarr"}` {
		t.Errorf("b: %+v %s", b, b.Extension.Config)
	}
}

// Check refuses an fs root that does not exist, or is a file, naming the
// root attribute's line and how to fix it; create_root = true allows a
// missing one; a root made of a sensitive variable is not shown.
func TestVerifyStores(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "file"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "there"), 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "zarrgw.hcl")
	src := `variable "sec" {
  env       = "SEC"
  sensitive = true
}
store "fs" "there" {
  root = "there"
}
store "fs" "missing" {
  root = "./missing/below"
}
store "fs" "made" {
  root        = "made/below"
  create_root = true
}
store "fs" "file" {
  root = "file"
}
store "fs" "secret" {
  root = "/nonexistent/${var.sec}"
}
`
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, diags := config.CheckDiagnostics(path, config.Options{Catalog: testCatalog(), LookupEnv: sensitiveEnv})
	errs := errorsOf(diags)
	if len(errs) != 3 {
		t.Fatalf("want 3 errors:\n%s", render(cfg, diags))
	}
	for i, want := range []struct {
		line int
		text []string
	}{
		{9, []string{"Store root does not exist", "store.fs.missing", filepath.Join(dir, "missing", "below"), `"./missing/below"`, "create_root = true"}},
		{16, []string{"Store root is not a directory", filepath.Join(dir, "file")}},
		{19, []string{"Store root does not exist", "var.sec"}},
	} {
		e := errs[i]
		text := e.Summary + " " + e.Detail
		if e.Subject.Start.Line != want.line {
			t.Errorf("error %d on line %d, want %d: %s", i, e.Subject.Start.Line, want.line, text)
		}
		for _, w := range want.text {
			if !strings.Contains(text, w) {
				t.Errorf("error %d lacks %q: %s", i, w, text)
			}
		}
	}
	if out := render(cfg, diags); strings.Contains(out, secretText) {
		t.Errorf("the sensitive root is shown:\n%s", out)
	}
	for _, d := range []string{"missing", "made"} {
		if _, err := os.Stat(filepath.Join(dir, d)); err == nil {
			t.Errorf("checking created %s", d)
		}
	}
}

// Each configuration file has a lock file of its own beside it; one
// without reads the directory's zarrgw.lock.hcl of earlier versions.
func TestLockFileOfEachConfiguration(t *testing.T) {
	for path, want := range map[string]string{
		"zarrgw.hcl":          "zarrgw.lock.hcl",
		"/etc/zarrgw/zip.hcl": "/etc/zarrgw/zip.lock.hcl",
		"conf/prefix.hcl":     "conf/prefix.lock.hcl",
		"/etc/zarrgw.conf":    "/etc/zarrgw.conf.lock.hcl",
	} {
		if got := config.LockPathFor(path); got != want {
			t.Errorf("LockPathFor(%q) = %q, want %q", path, got, want)
		}
	}
	dir := t.TempDir()
	zip, prefix := filepath.Join(dir, "zip.hcl"), filepath.Join(dir, "prefix.hcl")
	if got := config.LockSourceFor(zip); got != filepath.Join(dir, "zip.lock.hcl") {
		t.Errorf("without lock files: %s", got)
	}
	shared := filepath.Join(dir, config.LockFileName)
	if err := config.WriteLock(shared, &config.Lock{Plugins: map[string]config.LockedPlugin{}}); err != nil {
		t.Fatal(err)
	}
	if err := config.WriteLock(config.LockPathFor(prefix), &config.Lock{Plugins: map[string]config.LockedPlugin{}}); err != nil {
		t.Fatal(err)
	}
	if got := config.LockSourceFor(zip); got != shared {
		t.Errorf("zip.hcl without a lock file of its own reads %s, want %s", got, shared)
	}
	if got := config.LockSourceFor(prefix); got != config.LockPathFor(prefix) {
		t.Errorf("prefix.hcl reads %s", got)
	}
	if got := config.LockSourceFor(filepath.Join(dir, "zarrgw.hcl")); got != shared {
		t.Errorf("zarrgw.hcl reads %s", got)
	}
}

// A plugin without a lock entry is an error naming the configuration, its
// lock file and the lock file of another configuration that has one, and
// the command to run.
func TestMissingEntryNamesTheLockFiles(t *testing.T) {
	dir, _, _ := writeConfig(t, pluginSrc)
	other := filepath.Join(dir, "other.lock.hcl")
	if err := config.WriteLock(other, &config.Lock{Plugins: map[string]config.LockedPlugin{"example.org/acme/codec": {SHA256: sumA}}}); err != nil {
		t.Fatal(err)
	}
	cfgPath := filepath.Join(dir, "config.hcl")
	cfg, diags := config.LoadWith(cfgPath, config.Options{Catalog: testCatalog(), LookupEnv: noEnv})
	errs := errorsOf(diags)
	if len(errs) != 1 {
		t.Fatalf("%s", render(cfg, diags))
	}
	for _, want := range []string{"is not pinned", filepath.Join(dir, "config.lock.hcl") + ", the lock file of " + cfgPath, other + " has one", "zarrgw plugins lock -c " + cfgPath} {
		if !strings.Contains(errs[0].Summary+" "+errs[0].Detail, want) {
			t.Errorf("lacks %q:\n%s", want, render(cfg, diags))
		}
	}
}
