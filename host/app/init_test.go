package app

import (
	"strings"
	"testing"

	"github.com/hashicorp/go-version"

	"github.com/zarrgw/zarrgw/host/install"
	"github.com/zarrgw/zarrgw/host/runtime/config"
	"github.com/zarrgw/zarrgw/host/runtime/pluginpkg"
)

// The installer's steps print the lines "zarrgw init", "plugins lock" and
// "plugins mirror" print (the README's walk-throughs show them); the
// steps a user need not follow print nothing.
func TestInitProgressLines(t *testing.T) {
	a := pluginpkg.Address{Host: "example.org", Namespace: "acme", Type: "bitshave"}
	v := version.Must(version.NewVersion("1.3.0"))
	plat := pluginpkg.Platform{OS: "linux", Arch: "amd64"}
	served := config.Served{Codecs: []string{"bitshave"}}
	mirror := install.Location{Source: "filesystem mirror /srv/mirror", ZipPath: "/srv/mirror/p.zip"}
	net := install.Location{Source: "network mirror https://m.example/", URL: "https://m.example/p.zip"}
	for _, c := range []struct {
		step func(install.Events)
		want string
	}{
		{func(e install.Events) { e.OverrideSkipped(a.String(), "/home/me/cli.hcl", "/src/bitshave") },
			"- Skipping example.org/acme/bitshave: dev_overrides in /home/me/cli.hcl names a development build (/src/bitshave), which runs without installation or lock entry"},
		{func(e install.Events) { e.LockedVersion(a, v) }, "- Using example.org/acme/bitshave v1.3.0, as zarrgw.lock.hcl pins it"},
		{func(e install.Events) { e.QueryPackagesBegin(a, "~> 1.2") }, `- Finding example.org/acme/bitshave versions matching "~> 1.2"...`},
		{func(e install.Events) { e.InstallPackageBegin(a, v, plat) }, "- Installing example.org/acme/bitshave v1.3.0 for linux_amd64..."},
		{func(e install.Events) { e.FetchPackageBegin(a, v, net) }, "- Downloading https://m.example/p.zip"},
		{func(e install.Events) { e.FetchPackageBegin(a, v, mirror) }, ""},
		{func(e install.Events) { e.InstallPackageSuccess(a, v, install.Origin{Source: mirror.Source}, served) },
			"- Installed example.org/acme/bitshave v1.3.0 (filesystem mirror /srv/mirror; serves codec bitshave)"},
		{func(e install.Events) {
			e.InstallPackageSuccess(a, v, install.Origin{Source: net.Source, CacheDir: "/c"}, served)
		}, "- Installed example.org/acme/bitshave v1.3.0 (network mirror https://m.example/, into the plugin cache; serves codec bitshave)"},
		{func(e install.Events) { e.InstallPackageSuccess(a, v, install.Origin{CacheDir: "/c"}, served) },
			"- Installed example.org/acme/bitshave v1.3.0 (plugin cache /c; serves codec bitshave)"},
		{func(e install.Events) { e.InstallPackageSuccess(a, v, install.Origin{AlreadyInstalled: true}, served) },
			"- Installed example.org/acme/bitshave v1.3.0 (installed already; serves codec bitshave)"},
		{func(e install.Events) { e.HashPackageSuccess(a, v, plat, net, []string{"h1:x"}) },
			"- Obtained example.org/acme/bitshave v1.3.0 hashes for linux_amd64 (network mirror https://m.example/)"},
		{func(e install.Events) { e.MirrorPackageSuccess(a, v, plat, mirror) },
			"- Mirrored example.org/acme/bitshave v1.3.0 for linux_amd64 (filesystem mirror /srv/mirror)"},
	} {
		var out strings.Builder
		c.step(progress(&out, "zarrgw.lock.hcl"))
		if got := strings.TrimSuffix(out.String(), "\n"); got != c.want || strings.Count(out.String(), "\n") != min(1, len(c.want)) {
			t.Errorf("printed %q, want %q", out.String(), c.want)
		}
	}
	quiet := progress(nil, "zarrgw.lock.hcl")
	for name, set := range map[string]bool{
		"QueryPackagesSuccess": quiet.QueryPackagesSuccess != nil, "QueryPackagesFailure": quiet.QueryPackagesFailure != nil,
		"AlreadyInstalled": quiet.AlreadyInstalled != nil, "InstallPackageFailure": quiet.InstallPackageFailure != nil,
		"CacheLockWait": quiet.CacheLockWait != nil, "FetchPackageSuccess": quiet.FetchPackageSuccess != nil,
		"LinkFromCacheSuccess": quiet.LinkFromCacheSuccess != nil,
	} {
		if set {
			t.Errorf("%s prints: zarrgw init never printed that step", name)
		}
	}
}
