package config_test

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"

	"github.com/zarrgw/zarrgw/core/extension"
	"github.com/zarrgw/zarrgw/host/runtime/config"
)

const (
	sumA = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	sumB = "fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210"
)

// writeConfig lays out a configuration directory: config.hcl and a plugin
// binary at bin/codec.
func writeConfig(t *testing.T, src string) (dir, cfgPath, binPath string) {
	t.Helper()
	dir = t.TempDir()
	cfgPath = filepath.Join(dir, "config.hcl")
	binPath = filepath.Join(dir, "bin", "codec")
	if err := os.MkdirAll(filepath.Dir(binPath), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(binPath, []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfgPath, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, cfgPath, binPath
}

const pluginSrc = `plugin "example.org/acme/codec" {
  path = "bin/codec"
}
`

// "plugins lock" records the binary's checksum; loading then pins the
// plugin from the lock file, and a changed binary no longer verifies.
func TestLockPlugins(t *testing.T) {
	dir, cfgPath, binPath := writeConfig(t, pluginSrc)
	opts := config.Options{Catalog: testCatalog(), LookupEnv: noEnv}

	cfg, diags := config.LoadWith(cfgPath, opts)
	if errs := errorsOf(diags); len(errs) != 1 || !strings.Contains(errs[0].Summary, "not pinned") {
		t.Fatalf("before locking:\n%s", render(cfg, diags))
	}

	var out strings.Builder
	lock, lockPath, err := lockPlugins(cfgPath, opts, &out)
	if err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	want := fileSum(t, binPath)
	if lockPath != filepath.Join(dir, "config.lock.hcl") || lock.Plugins["example.org/acme/codec"].SHA256 != want {
		t.Errorf("lock %v at %s, want %s", lock, lockPath, want)
	}

	cfg, diags = config.LoadWith(cfgPath, opts)
	if diags.HasErrors() {
		t.Fatal(render(cfg, diags))
	}
	p := cfg.Plugins[0]
	if p.SHA256 != want || p.PinnedBy != config.PinLock || p.Path != binPath {
		t.Errorf("plugin %+v", p)
	}
	if d := config.VerifyPlugins(cfg); len(d) != 0 {
		t.Errorf("verify: %v", d)
	}

	if err := os.WriteFile(binPath, []byte("tampered"), 0o755); err != nil {
		t.Fatal(err)
	}
	if d := config.VerifyPlugins(cfg); !d.HasErrors() || !strings.Contains(d[0].Summary, "does not match") {
		t.Errorf("tampered binary: %v", d)
	}
	// Locking again takes the new binary.
	if lock, _, err = lockPlugins(cfgPath, opts, &out); err != nil || lock.Plugins["example.org/acme/codec"].SHA256 != fileSum(t, binPath) {
		t.Errorf("relock: %v %v\n%s", lock, err, out.String())
	}
	if err := os.Remove(binPath); err != nil {
		t.Fatal(err)
	}
	if d := config.VerifyPlugins(cfg); d.HasErrors() || len(d) != 1 || d[0].Severity != hcl.DiagWarning {
		t.Errorf("missing binary: %v", d)
	}
}

// A checksum in the plugin block and one in the lock file must agree.
func TestLockDisagreesWithConfig(t *testing.T) {
	_, cfgPath, _ := writeConfig(t, `plugin "example.org/acme/codec" {
  path   = "bin/codec"
  sha256 = "`+sumA+`"
}
`)
	lockPath := filepath.Join(filepath.Dir(cfgPath), config.LockFileName)
	if err := config.WriteLock(lockPath, &config.Lock{Plugins: map[string]config.LockedPlugin{"example.org/acme/codec": {SHA256: sumB}}}); err != nil {
		t.Fatal(err)
	}
	cfg, diags := config.LoadWith(cfgPath, config.Options{Catalog: testCatalog(), LookupEnv: noEnv})
	errs := errorsOf(diags)
	if len(errs) != 1 || errs[0].Subject.Start.Line != 3 || !strings.Contains(errs[0].Detail, lockPath) {
		t.Errorf("want one error on line 3 naming the lock file:\n%s", render(cfg, diags))
	}

	// Locking refuses too: the binary does not match the block's checksum.
	var out strings.Builder
	if _, _, err := lockPlugins(cfgPath, config.Options{Catalog: testCatalog(), LookupEnv: noEnv}, &out); err == nil {
		t.Errorf("lock succeeded:\n%s", out.String())
	}
}

// lockPlugins does what "zarrgw plugins lock" does for plugins given by
// path, and returns the lock written and where.
func lockPlugins(cfgPath string, opts config.Options, w io.Writer) (*config.Lock, string, error) {
	cfg, lock, err := config.LockPlugins(cfgPath, opts, w)
	if err != nil {
		return nil, "", err
	}
	return lock, cfg.LockPath(), config.WriteLock(cfg.LockPath(), lock)
}

func fileSum(t *testing.T, path string) string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// xorConfig declares a plugin whose address does not end in the name of
// the codec a dataset takes from it.
const xorConfig = `plugin "example.com/tmp/zarrgw-codec-xor" {
  path = "bin/codec"
}
store "fs" "a" {
  root = "/data"
}
dataset "d" {
  store = store.fs.a
  codec "xor" {
    key = 1
  }
}
`

// "plugins lock" starts each plugin (here a prober standing in for it) and
// records the names it serves; loading with that lock then resolves a
// codec named unlike the plugin's address to it, without starting it.
func TestLockRecordsServedNames(t *testing.T) {
	_, cfgPath, binPath := writeConfig(t, xorConfig)
	var probed []string
	probe := func(p config.Plugin) ([]extension.Manifest, error) {
		probed = append(probed, p.SHA256)
		return []extension.Manifest{{Kind: extension.Codec, Name: "xor"}, {Kind: extension.Store, Name: "zip"}}, nil
	}
	var out strings.Builder
	lock, _, err := lockPlugins(cfgPath, config.Options{Catalog: testCatalog(), LookupEnv: noEnv, Probe: probe}, &out)
	if err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	want := config.Served{Codecs: []string{"xor"}, Stores: []string{"zip"}}
	if got := lock.Plugins["example.com/tmp/zarrgw-codec-xor"]; !reflect.DeepEqual(got.Serves, want) || got.SHA256 != fileSum(t, binPath) {
		t.Fatalf("locked %+v", got)
	}
	if len(probed) != 1 || probed[0] != fileSum(t, binPath) {
		t.Errorf("probed with checksums %v: the plugin must be pinned to its binary while it is asked", probed)
	}

	cfg, diags := config.LoadWith(cfgPath, config.Options{Catalog: testCatalog(), LookupEnv: noEnv})
	if diags.HasErrors() {
		t.Fatal(render(cfg, diags))
	}
	c := cfg.Datasets[0].Codecs[0]
	if c.Plugin != "example.com/tmp/zarrgw-codec-xor" || c.Checked || len(diags) != 1 || diags[0].Severity != hcl.DiagWarning {
		t.Errorf("codec %+v\n%s", c, render(cfg, diags))
	}
}

// An unpinned plugin is one error, saying to lock; the codec it may serve
// is not called unknown besides.
func TestUnpinnedPluginIsOneError(t *testing.T) {
	_, cfgPath, _ := writeConfig(t, xorConfig)
	cfg, diags := config.LoadWith(cfgPath, config.Options{Catalog: testCatalog(), LookupEnv: noEnv})
	if len(diags) != 1 || !strings.Contains(diags[0].Detail, "zarrgw plugins lock -c "+cfgPath) {
		t.Errorf("want one diagnostic saying to lock:\n%s", render(cfg, diags))
	}
}
