package config_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zarrgw/zarrgw/host/runtime/config"
)

// Plugin blocks that give a version are installed plugins; mistakes in
// them are one error each, on the line at fault.
func TestInstalledPluginBlocks(t *testing.T) {
	for _, c := range []struct {
		name, src string
		line      int
		want      []string
	}{
		{"path and version", `plugin "example.org/acme/x" {
  path    = "x"
  version = "~> 1.2"
}`, 3, []string{"Both path and version"}},
		{"neither", `plugin "example.org/acme/x" {
}`, 1, []string{"Plugin without a binary", "version", "path"}},
		{"bad constraint", `plugin "example.org/acme/x" {
  version = "about 1.2"
}`, 2, []string{"Invalid version constraint", `"about 1.2"`, "~> 1.2"}},
		{"address of two parts", `plugin "acme/x" {
  version = "~> 1.2"
}`, 1, []string{"Invalid address for an installed plugin", "HOST/NAMESPACE/TYPE"}},
		{"sha256 with version", `plugin "example.org/acme/x" {
  version = "1.2.0"
  sha256  = "` + sumA + `"
}`, 3, []string{"sha256 of an installed plugin", "/etc/zarrgw/test.lock.hcl"}},
		{"not installed", `plugin "example.org/acme/x" {
  version = "~> 1.2"
}`, 1, []string{`Plugin "example.org/acme/x" is not installed`, "zarrgw init -c /etc/zarrgw/test.hcl"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg, diags := parse(t, c.src, config.Options{Lock: &config.Lock{}})
			wantOneError(t, cfg, diags, c.line, c.want...)
		})
	}
}

// An installed plugin is pinned to what Options.Installed finds, given
// the version and hashes the lock file records; a locked version that no
// longer meets the block's constraint says to upgrade; what the locator
// refuses is an error naming the plugin once.
func TestInstalledPluginFromLock(t *testing.T) {
	src := `plugin "example.org/acme/x" {
  version = "~> 1.2"
}
`
	hashes := []string{"h1:abc=", "zh:" + sumB}
	lock := &config.Lock{Plugins: map[string]config.LockedPlugin{
		"example.org/acme/x": {Version: "1.3.0", Constraints: "~> 1.2", Hashes: hashes, Serves: config.Served{Codecs: []string{"xor"}}},
	}}
	var asked config.Plugin
	found := func(p config.Plugin) (config.Located, error) {
		asked = p
		return config.Located{Path: "/plugins/x", SHA256: sumA}, nil
	}
	cfg := mustParse(t, src, config.Options{Lock: lock, Installed: found})
	p := cfg.Plugins[0]
	if asked.Version != "1.3.0" || strings.Join(asked.Hashes, ",") != strings.Join(hashes, ",") ||
		p.Path != "/plugins/x" || p.SHA256 != sumA || p.PinnedBy != config.PinInstalled || !p.Serves.Has("codec", "xor") {
		t.Errorf("asked %+v, got %+v", asked, p)
	}
	if got := p.Locked(); got.Version != "1.3.0" || got.SHA256 != "" {
		t.Errorf("lock entry %+v", got)
	}

	tooNew := `plugin "example.org/acme/x" {
  version = ">= 2.0"
}
`
	cfg, diags := parse(t, tooNew, config.Options{Lock: lock, Installed: found})
	wantOneError(t, cfg, diags, 1, "pins version 1.3.0", `">= 2.0"`, "zarrgw init -upgrade -c /etc/zarrgw/test.hcl")

	refused := func(config.Plugin) (config.Located, error) {
		return config.Located{}, errors.New("plugin example.org/acme/x 1.3.0: the installed package changed")
	}
	cfg, diags = parse(t, src, config.Options{Lock: lock, Installed: refused})
	d := wantOneError(t, cfg, diags, 1, "the installed package changed")
	if strings.Contains(d.Detail, "plugin example.org/acme/x:") {
		t.Errorf("the plugin is named twice: %s", d.Detail)
	}
}

// The lock file reads and writes as Terraform's: version, constraints and
// hashes (one per line, sorted) for installed plugins; entries of binaries
// given by path (sha256 only, as older lock files have them) still read.
func TestLockFileFormat(t *testing.T) {
	path := filepath.Join(t.TempDir(), config.LockFileName)
	lock := &config.Lock{Plugins: map[string]config.LockedPlugin{
		"example.org/acme/xor": {Version: "1.3.0", Constraints: "~> 1.2",
			Hashes: []string{"zh:" + sumB, "h1:AAAA=", "zh:" + sumB}, Serves: config.Served{Codecs: []string{"xor"}}},
		"example.org/acme/path": {SHA256: sumA},
	}}
	if err := config.WriteLock(path, lock); err != nil {
		t.Fatal(err)
	}
	got := string(readFile(t, path))
	want := `plugin "example.org/acme/path" {
  sha256 = "` + sumA + `"
}

plugin "example.org/acme/xor" {
  version     = "1.3.0"
  constraints = "~> 1.2"
  hashes = [
    "h1:AAAA=",
    "zh:` + sumB + `",
  ]
  codecs = ["xor"]
}
`
	if !strings.HasSuffix(got, want) {
		t.Fatalf("lock file:\n%s\nwant it to end with:\n%s", got, want)
	}
	back, diags := config.LoadLock(path)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	if x := back.Plugins["example.org/acme/xor"]; x.Version != "1.3.0" || x.Constraints != "~> 1.2" || len(x.Hashes) != 2 || !x.Serves.Has("codec", "xor") {
		t.Errorf("read back %+v", x)
	}
	if p := back.Plugins["example.org/acme/path"]; p.SHA256 != sumA || p.Version != "" {
		t.Errorf("read back %+v", p)
	}
	for _, bad := range []string{
		`plugin "a/b/c" {
  version = "1.0.0"
  sha256  = "` + sumA + `"
}`,
		`plugin "a/b/c" {
  version = "1.0.0"
  hashes  = ["md5:abc"]
}`,
		`plugin "a/b/c" {
  version = "1.0.0"
}`,
	} {
		if _, diags := config.ParseLock([]byte(bad), "zarrgw.lock.hcl"); !diags.HasErrors() {
			t.Errorf("accepted:\n%s", bad)
		}
	}
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// A plugin block that gives a path after the plugin was installed by
// version: the lock file's entry for it (a version, hashes, no sha256)
// pins nothing, so the block is unpinned (and says how to lock it), or
// pinned by its own sha256 without a conflict with the lock file.
func TestPathBlockAfterInstalledEntry(t *testing.T) {
	lock := &config.Lock{Plugins: map[string]config.LockedPlugin{
		"example.org/acme/x": {Version: "1.3.0", Constraints: "~> 1.2", Hashes: []string{"h1:abc="},
			Serves: config.Served{Codecs: []string{"x"}}},
	}}
	cfg, diags := parse(t, `plugin "example.org/acme/x" {
  path = "/bin/x"
}
`, config.Options{Lock: lock})
	wantOneError(t, cfg, diags, 1, `Plugin "example.org/acme/x" is not pinned`, "zarrgw plugins lock -c /etc/zarrgw/test.hcl")

	cfg = mustParse(t, `plugin "example.org/acme/x" {
  path   = "/bin/x"
  sha256 = "`+sumA+`"
}
`, config.Options{Lock: lock})
	if p := cfg.Plugins[0]; p.SHA256 != sumA || p.PinnedBy != config.PinConfig || !p.Serves.Empty() {
		t.Errorf("%+v: pinned by its block alone, with nothing served assumed from the installed plugin's entry", p)
	}
}
