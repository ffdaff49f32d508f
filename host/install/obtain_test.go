package install

import (
	"context"
	"errors"
	"maps"
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

// publishFake puts a package of a stand-in executable holding content
// into the packed layout of the mirror dir and returns its zip's path.
func publishFake(t *testing.T, dir string, a pluginpkg.Address, v *version.Version, p pluginpkg.Platform, content string) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "bin")
	if err := os.WriteFile(bin, []byte(content), 0o755); err != nil {
		t.Fatal(err)
	}
	zipPath := filepath.Join(dir, filepath.FromSlash(a.Path()), pluginpkg.FileName(a.Type, v, p))
	if err := os.MkdirAll(filepath.Dir(zipPath), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := pluginpkg.Build(zipPath, bin, pluginpkg.Executable(a.Type, v, p)); err != nil {
		t.Fatal(err)
	}
	return zipPath
}

// Through a plugin cache, a package is fetched once and each installation
// links to it; an installation served from the cache records the same
// hashes (h1: and the zip's zh:) as the one that fetched it. A package
// that does not match the lock file's hashes is refused, as not locked,
// and the installation is left as it was.
func TestObtainThroughCache(t *testing.T) {
	mirror, cache := t.TempDir(), t.TempDir()
	a := pluginpkg.Address{Host: "example.org", Namespace: "acme", Type: "xor"}
	v := version.Must(version.NewVersion("1.3.0"))
	plat := pluginpkg.Platform{OS: "linux", Arch: "amd64"}
	want, err := pluginpkg.ZipHashes(publishFake(t, mirror, a, v, plat, "#!/bin/sh\necho 1.3.0\n"))
	if err != nil {
		t.Fatal(err)
	}
	in := &Installer{Sources: pluginsource.Sources{{Source: pluginsource.FSMirror{Dir: mirror}}}, CacheDir: cache, Platform: plat}
	ctx := context.Background()

	first, second := Dir(t.TempDir()), Dir(t.TempDir())
	got, err := in.obtain(ctx, first, a, v, nil)
	fetched := Origin{Source: pluginsource.FSMirror{Dir: mirror}.String(), CacheDir: cache}
	if err != nil || !slices.Equal(got.hashes, want) || got.origin != fetched {
		t.Fatalf("first: %+v %v, want the hashes %v, fetched into the cache", got, err, want)
	}
	got, err = in.obtain(ctx, second, a, v, nil)
	if err != nil || !slices.Equal(got.hashes, want) || got.origin != (Origin{CacheDir: cache}) {
		t.Fatalf("second: %+v %v, want the hashes %v from the cache", got, err, want)
	}
	cached := packageDir(cache, a, v, plat)
	for _, root := range []string{first, second} {
		if target, err := os.Readlink(packageDir(root, a, v, plat)); err != nil || target != cached {
			t.Errorf("%s: linked to %q (%v), want %s", root, target, err, cached)
		}
	}

	// The mirror's package replaced; the lock file vouches for the old one.
	publishFake(t, mirror, a, v, plat, "#!/bin/sh\necho other\n")
	os.RemoveAll(cache)
	third := Dir(t.TempDir())
	_, err = in.obtain(ctx, third, a, v, want)
	if !errors.Is(err, errNotLocked) || !strings.Contains(err.Error(), want[0]) {
		t.Fatalf("a package not the one locked: %v", err)
	}
	if _, err := os.Lstat(packageDir(third, a, v, plat)); err == nil {
		t.Error("the package not locked was installed")
	}
}

// Init keeps the lock entries of plugins it does not install: a binary
// given by path keeps its sha256 entry (not one left from when it was
// installed by version), and a plugin overridden for development is
// skipped, saying so, its entry kept, without asking any source.
func TestInitKeepsWhatItDoesNotInstall(t *testing.T) {
	dir := t.TempDir()
	cfg := &config.Config{Dir: dir, Filename: "zarrgw.hcl", Plugins: []config.Plugin{
		{Source: "example.org/acme/path", Path: "/bin/path"},
		{Source: "example.org/acme/was-installed", Path: "/bin/was"},
		{Source: "example.org/acme/dev", Constraints: "~> 1.0"},
	}}
	sum := strings.Repeat("ab", 32)
	old := &config.Lock{Plugins: map[string]config.LockedPlugin{
		"example.org/acme/path":          {SHA256: sum},
		"example.org/acme/was-installed": {Version: "1.0.0", Hashes: []string{"h1:abc="}},
		"example.org/acme/dev":           {Version: "1.0.0", Constraints: "~> 1.0", Hashes: []string{"h1:def="}},
		"example.org/acme/gone":          {SHA256: sum},
	}}
	if err := config.WriteLock(cfg.LockPath(), old); err != nil {
		t.Fatal(err)
	}
	var steps []step
	in := &Installer{Events: recorder(&steps), Platform: pluginpkg.Current(),
		Overrides: map[string]string{"example.org/acme/dev": "/src/dev"}, OverridesFrom: "/home/me/cli.hcl"}
	lock, err := in.Init(context.Background(), cfg, false)
	if err != nil {
		t.Fatal(err)
	}
	if got := slices.Sorted(maps.Keys(lock.Plugins)); !slices.Equal(got, []string{"example.org/acme/dev", "example.org/acme/path"}) {
		t.Errorf("lock entries %v", got)
	}
	if e := lock.Plugins["example.org/acme/dev"]; e.Version != "1.0.0" || e.Hashes[0] != "h1:def=" {
		t.Errorf("overridden plugin's entry %+v", e)
	}
	checkSteps(t, "init", steps, []step{{"OverrideSkipped", []any{"example.org/acme/dev", "/home/me/cli.hcl", "/src/dev"}}})
}
