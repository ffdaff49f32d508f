package install

import (
	"context"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-version"

	"github.com/zarrgw/zarrgw/core/extension"
	"github.com/zarrgw/zarrgw/host/install/pluginsource"
	"github.com/zarrgw/zarrgw/host/runtime/config"
	"github.com/zarrgw/zarrgw/host/runtime/launcher"
	"github.com/zarrgw/zarrgw/host/runtime/pluginpkg"
)

// step is one event the installer told: the callback's name and its
// arguments (versions as strings, errors as their messages, so that steps
// compare as values).
type step struct {
	name string
	args []any
}

func (s step) String() string { return fmt.Sprintf("%s%v", s.name, s.args) }

// recorder returns Events that append every step to *steps.
func recorder(steps *[]step) Events {
	rec := func(name string, args ...any) {
		for i, a := range args {
			switch a := a.(type) {
			case *version.Version:
				args[i] = a.String()
			case error:
				args[i] = a.Error()
			}
		}
		*steps = append(*steps, step{name, args})
	}
	type (
		addr = pluginpkg.Address
		ver  = *version.Version
		plat = pluginpkg.Platform
	)
	return Events{
		OverrideSkipped:       func(source, cliFile, dir string) { rec("OverrideSkipped", source, cliFile, dir) },
		LockedVersion:         func(a addr, v ver) { rec("LockedVersion", a, v) },
		QueryPackagesBegin:    func(a addr, constraint string) { rec("QueryPackagesBegin", a, constraint) },
		QueryPackagesSuccess:  func(a addr, v ver) { rec("QueryPackagesSuccess", a, v) },
		QueryPackagesFailure:  func(a addr, err error) { rec("QueryPackagesFailure", a, err) },
		AlreadyInstalled:      func(a addr, v ver, dir string) { rec("AlreadyInstalled", a, v, dir) },
		InstallPackageBegin:   func(a addr, v ver, p plat) { rec("InstallPackageBegin", a, v, p) },
		InstallPackageSuccess: func(a addr, v ver, o Origin, s config.Served) { rec("InstallPackageSuccess", a, v, o, s) },
		InstallPackageFailure: func(a addr, v ver, err error) { rec("InstallPackageFailure", a, v, err) },
		CacheLockWait:         func(a addr, v ver, lockPath string) { rec("CacheLockWait", a, v, lockPath) },
		FetchPackageBegin:     func(a addr, v ver, l Location) { rec("FetchPackageBegin", a, v, l) },
		FetchPackageSuccess:   func(a addr, v ver, dir string, h []string) { rec("FetchPackageSuccess", a, v, dir, h) },
		LinkFromCacheSuccess:  func(a addr, v ver, cached, dir string) { rec("LinkFromCacheSuccess", a, v, cached, dir) },
		HashPackageSuccess:    func(a addr, v ver, p plat, l Location, h []string) { rec("HashPackageSuccess", a, v, p, l, h) },
		MirrorPackageSuccess:  func(a addr, v ver, p plat, l Location) { rec("MirrorPackageSuccess", a, v, p, l) },
	}
}

// checkSteps fails unless got are the steps want, in order.
func checkSteps(t *testing.T, what string, got, want []step) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%s: steps\n%s\nwant\n%s", what, lines(got), lines(want))
	}
}

func lines(steps []step) string {
	var b strings.Builder
	for _, s := range steps {
		fmt.Fprintf(&b, "  %v\n", s)
	}
	return b.String()
}

// probeXor stands in for launcher.Probe: every plugin serves the codec
// xor. It fails unless asked about an executable of an installation.
func probeXor(_ context.Context, spec launcher.Spec, _ launcher.Options) ([]extension.Manifest, error) {
	if !strings.Contains(spec.Path, string(filepath.Separator)+".zarrgw"+string(filepath.Separator)) || spec.SHA256 == "" {
		return nil, fmt.Errorf("asked about %s (sha256 %q), not an installed plugin", spec.Path, spec.SHA256)
	}
	return []extension.Manifest{{Kind: extension.Codec, Name: "xor"}}, nil
}

// One configuration installs from a filesystem mirror through an empty
// plugin cache: the installer asks the mirror for versions, fetches the
// package from its zip into the cache and links the installation to it.
// A second configuration finds the package in the cache and only links.
// The first again, with its lock file, takes the pinned version without
// asking the mirror and finds the package installed already.
func TestEventsOfInstalls(t *testing.T) {
	mirror, cache := t.TempDir(), t.TempDir()
	a := pluginpkg.Address{Host: "example.org", Namespace: "acme", Type: "xor"}
	plat := pluginpkg.Platform{OS: "linux", Arch: "amd64"}
	zips := map[string]string{}
	for _, s := range []string{"1.2.0", "1.3.0", "2.0.0"} {
		zips[s] = publishFake(t, mirror, a, version.Must(version.NewVersion(s)), plat, "#!/bin/sh\necho "+s+"\n")
	}
	zip := zips["1.3.0"]
	hashes, err := pluginpkg.ZipHashes(zip)
	if err != nil {
		t.Fatal(err)
	}
	var steps []step
	in := &Installer{Sources: pluginsource.Sources{{Source: pluginsource.FSMirror{Dir: mirror}}}, CacheDir: cache,
		Platform: plat, Events: recorder(&steps), probe: probeXor}
	v := version.Must(version.NewVersion("1.3.0"))
	cached := packageDir(cache, a, v, plat)
	from := Location{Source: pluginsource.FSMirror{Dir: mirror}.String(), ZipPath: zip}
	served := config.Served{Codecs: []string{"xor"}}

	first := project(t, a, "~> 1.2")
	lock := initSteps(t, in, first)
	checkSteps(t, "install from the mirror", steps, []step{
		{"QueryPackagesBegin", []any{a, "~> 1.2"}},
		{"QueryPackagesSuccess", []any{a, "1.3.0"}},
		{"InstallPackageBegin", []any{a, "1.3.0", plat}},
		{"FetchPackageBegin", []any{a, "1.3.0", from}},
		{"FetchPackageSuccess", []any{a, "1.3.0", cached, hashes}},
		{"LinkFromCacheSuccess", []any{a, "1.3.0", cached, packageDir(Dir(first.Dir), a, v, plat)}},
		{"InstallPackageSuccess", []any{a, "1.3.0", Origin{Source: from.Source, CacheDir: cache}, served}},
	})
	if e := lock.Plugins[a.String()]; e.Version != "1.3.0" || !reflect.DeepEqual(e.Hashes, hashes) {
		t.Fatalf("lock entry %+v, want 1.3.0 with the hashes %v", e, hashes)
	}

	steps = nil
	second := project(t, a, "~> 1.2")
	initSteps(t, in, second)
	checkSteps(t, "install from the cache", steps, []step{
		{"QueryPackagesBegin", []any{a, "~> 1.2"}},
		{"QueryPackagesSuccess", []any{a, "1.3.0"}},
		{"InstallPackageBegin", []any{a, "1.3.0", plat}},
		{"LinkFromCacheSuccess", []any{a, "1.3.0", cached, packageDir(Dir(second.Dir), a, v, plat)}},
		{"InstallPackageSuccess", []any{a, "1.3.0", Origin{CacheDir: cache}, served}},
	})

	steps = nil
	if err := config.WriteLock(first.LockPath(), lock); err != nil {
		t.Fatal(err)
	}
	initSteps(t, in, first)
	checkSteps(t, "init again", steps, []step{
		{"LockedVersion", []any{a, "1.3.0"}},
		{"AlreadyInstalled", []any{a, "1.3.0", packageDir(Dir(first.Dir), a, v, plat)}},
		{"InstallPackageSuccess", []any{a, "1.3.0", Origin{AlreadyInstalled: true}, served}},
	})
}

// A version the sources do not have fails the query, and the plugin is not
// installed.
func TestEventsOfAFailedQuery(t *testing.T) {
	mirror := t.TempDir()
	a := pluginpkg.Address{Host: "example.org", Namespace: "acme", Type: "xor"}
	plat := pluginpkg.Platform{OS: "linux", Arch: "amd64"}
	publishFake(t, mirror, a, version.Must(version.NewVersion("1.2.0")), plat, "#!/bin/sh\n")
	var steps []step
	in := &Installer{Sources: pluginsource.Sources{{Source: pluginsource.FSMirror{Dir: mirror}}}, Platform: plat, Events: recorder(&steps), probe: probeXor}
	cfg := project(t, a, ">= 2")
	if _, err := in.Init(context.Background(), cfg, false); err == nil || len(steps) != 2 {
		t.Fatalf("init of a version the mirror does not have: %v; steps\n%s", err, lines(steps))
	}
	if got := steps[1]; got.name != "QueryPackagesFailure" || got.args[0] != a || !strings.Contains(got.args[1].(string), "no version meets") {
		t.Errorf("step %v, want the query's failure", got)
	}
}

// An installation that finds another holding the cache entry's lock says
// that it waits, waits, and then links to what the other put there.
func TestEventsOfAWaitForTheCache(t *testing.T) {
	mirror, cache := t.TempDir(), t.TempDir()
	a := pluginpkg.Address{Host: "example.org", Namespace: "acme", Type: "xor"}
	plat := pluginpkg.Platform{OS: "linux", Arch: "amd64"}
	v := version.Must(version.NewVersion("1.3.0"))
	publishFake(t, mirror, a, v, plat, "#!/bin/sh\n")
	cached := packageDir(cache, a, v, plat)
	in := &Installer{Sources: pluginsource.Sources{{Source: pluginsource.FSMirror{Dir: mirror}}}, CacheDir: cache, Platform: plat}
	if _, err := in.obtain(context.Background(), t.TempDir(), a, v, nil); err != nil { // fills the cache
		t.Fatal(err)
	}

	unlock, err := lockFile(cached+".lock", func() { t.Error("the lock was held before the test took it") })
	if err != nil {
		t.Fatal(err)
	}
	waits := make(chan string, 1)
	in.Events = Events{CacheLockWait: func(wa pluginpkg.Address, wv *version.Version, lockPath string) {
		if wa != a || !wv.Equal(v) {
			t.Errorf("waits for %s %s", wa, wv)
		}
		waits <- lockPath
	}}
	done := make(chan error)
	go func() {
		_, err := in.obtain(context.Background(), t.TempDir(), a, v, nil)
		done <- err
	}()
	select {
	case got := <-waits:
		if got != cached+".lock" {
			t.Errorf("waits for the lock %s, want %s", got, cached+".lock")
		}
	case err := <-done:
		t.Fatalf("obtained while the lock was held: %v", err)
	case <-time.After(30 * time.Second):
		unlock()
		<-done
		t.Fatal("no word of waiting for the lock in 30s")
	}
	select {
	case err := <-done:
		t.Fatalf("obtained while the lock was held: %v", err)
	case <-time.After(100 * time.Millisecond): // still waiting
	}
	unlock()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// project is a configuration in a new directory installing plugin a by
// constraint.
func project(t *testing.T, a pluginpkg.Address, constraint string) *config.Config {
	return &config.Config{Dir: t.TempDir(), Filename: "zarrgw.hcl", Plugins: []config.Plugin{{Source: a.String(), Constraints: constraint}}}
}

// initSteps runs Init on cfg and returns the lock to write.
func initSteps(t *testing.T, in *Installer, cfg *config.Config) *config.Lock {
	t.Helper()
	lock, err := in.Init(context.Background(), cfg, false)
	if err != nil {
		t.Fatal(err)
	}
	return lock
}
