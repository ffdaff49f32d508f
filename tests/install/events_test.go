package install

import (
	"context"
	"io"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/go-version"

	"github.com/zarrgw/zarrgw/host/install"
	"github.com/zarrgw/zarrgw/host/install/cliconfig"
	"github.com/zarrgw/zarrgw/host/runtime/config"
	"github.com/zarrgw/zarrgw/host/runtime/launcher"
	"github.com/zarrgw/zarrgw/host/runtime/pluginpkg"
	"github.com/zarrgw/zarrgw/host/runtime/registry"
)

// told is what the installer told of one init of a project, which
// installs one plugin: the version chosen and how, where the package came
// from, and what it downloaded.
type told struct {
	chosen    string // the version taken
	pinned    bool   // from the lock file, without asking the sources
	installed string // the version installed, "" for none
	from      install.Origin
	downloads []string // URLs
}

// initIn does in this process what "zarrgw init" (with -upgrade when
// upgrade) does on machine m for the project in dir: load the CLI
// configuration m's environment names and the project's configuration,
// install, write the lock file. It returns what the installer told.
func initIn(t *testing.T, m *machine, dir string, upgrade bool) told {
	t.Helper()
	cli, err := cliconfig.Load(m.getenv)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "zarrgw.hcl")
	cfg, diags := config.LoadWith(file, config.Options{Installing: true, Catalog: registry.Bundled().Catalog()})
	if diags.HasErrors() {
		t.Fatalf("%s: %v", file, diags)
	}
	var got told
	quiet := launcher.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
	lock, err := install.New(cli, got.record(), quiet).Init(context.Background(), cfg, upgrade)
	if err != nil {
		t.Fatalf("init in %s: %v", dir, err)
	}
	if err := config.WriteLock(cfg.LockPath(), lock); err != nil {
		t.Fatal(err)
	}
	return got
}

// record returns the events that fill in got.
func (got *told) record() install.Events {
	return install.Events{
		LockedVersion: func(_ pluginpkg.Address, v *version.Version) {
			got.chosen, got.pinned = v.String(), true
		},
		QueryPackagesSuccess: func(_ pluginpkg.Address, v *version.Version) { got.chosen = v.String() },
		FetchPackageBegin: func(_ pluginpkg.Address, _ *version.Version, from install.Location) {
			if from.URL != "" {
				got.downloads = append(got.downloads, from.URL)
			}
		},
		InstallPackageSuccess: func(_ pluginpkg.Address, v *version.Version, from install.Origin, _ config.Served) {
			got.installed, got.from = v.String(), from
		},
	}
}

// getenv looks a variable up in the machine's environment.
func (m *machine) getenv(name string) string {
	for _, kv := range slices.Backward(m.env) {
		if k, v, ok := strings.Cut(kv, "="); ok && k == name {
			return v
		}
	}
	return ""
}
