package install

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hashicorp/go-version"

	"github.com/zarrgw/zarrgw/core/extension"
	"github.com/zarrgw/zarrgw/host/install/cliconfig"
	"github.com/zarrgw/zarrgw/host/install/pluginsource"
	"github.com/zarrgw/zarrgw/host/runtime/config"
	"github.com/zarrgw/zarrgw/host/runtime/launcher"
	"github.com/zarrgw/zarrgw/host/runtime/pluginpkg"
)

// Installer installs the plugins of configurations from its sources.
type Installer struct {
	Sources pluginsource.Sources
	// SourcesFrom names the file the sources come from (the CLI
	// configuration), for the message that there are none.
	SourcesFrom string
	// CacheDir is the plugin cache shared by installations, "" for none:
	// a package is fetched into it once, under a file lock, and each
	// installation links to it.
	CacheDir string
	Platform pluginpkg.Platform
	// Events are told of each step.
	Events Events
	// Launch tunes the one start of each plugin that asks what it serves.
	Launch launcher.Options
	// Overrides are the CLI configuration's dev_overrides, by source
	// address, and OverridesFrom its file: those plugins are neither
	// installed nor locked.
	Overrides     map[string]string
	OverridesFrom string
	// probe starts a plugin once to ask what it serves; nil is
	// launcher.Probe. Tests set a stand-in, to install packages of
	// executables that are no plugins.
	probe func(context.Context, launcher.Spec, launcher.Options) ([]extension.Manifest, error)
}

// New returns an installer for this platform with the sources and the
// cache of a CLI configuration, telling events of each step.
func New(cli *cliconfig.Config, events Events, launch launcher.Options) *Installer {
	from := cli.Filename
	if from == "" {
		if def, err := cliconfig.DefaultFile(); err == nil {
			from = "none found: $" + cliconfig.FileEnv + " names one, else " + def
		}
	}
	return &Installer{Sources: cli.Sources, SourcesFrom: from, CacheDir: cli.CacheDir,
		Platform: pluginpkg.Current(), Events: events, Launch: launch,
		Overrides: cli.DevOverrides, OverridesFrom: cli.Filename}
}

// Init installs every plugin of cfg given by version, as "zarrgw init"
// does: the version the lock file pins, unless upgrade or there is none,
// when the newest that meets the constraint; and returns the lock file to
// write. cfg is loaded with config.Options.Installing.
// The entries of plugins given by path, and of plugins the CLI
// configuration overrides for development, are kept as they are; those of
// plugins no longer declared are dropped.
func (in *Installer) Init(ctx context.Context, cfg *config.Config, upgrade bool) (*config.Lock, error) {
	old, diags := config.LoadLock(cfg.LockSource())
	if diags.HasErrors() {
		return nil, fmt.Errorf("%s: %w", cfg.LockSource(), diags)
	}
	lock := &config.Lock{Plugins: map[string]config.LockedPlugin{}}
	var errs []error
	for _, p := range cfg.Plugins {
		prev, locked := old.Plugins[p.Source]
		switch {
		case !p.Installed():
			if locked && prev.SHA256 != "" { // not the entry of when it was installed by version
				lock.Plugins[p.Source] = prev
			}
			continue
		case in.overridden(p):
			if locked {
				lock.Plugins[p.Source] = prev
			}
			continue
		}
		var prevp *config.LockedPlugin
		if locked {
			prevp = &prev
		}
		entry, err := in.install(ctx, cfg, p, prevp, upgrade)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		lock.Plugins[p.Source] = entry
	}
	return lock, errors.Join(errs...)
}

// install installs one plugin and returns its lock entry.
func (in *Installer) install(ctx context.Context, cfg *config.Config, p config.Plugin, prev *config.LockedPlugin, upgrade bool) (config.LockedPlugin, error) {
	a, err := pluginpkg.ParseAddress(p.Source)
	if err != nil {
		return config.LockedPlugin{}, err
	}
	v, err := in.choose(ctx, cfg, a, p.Constraints, prev, upgrade)
	if err != nil {
		return config.LockedPlugin{}, err
	}
	var locked []string
	if prev != nil && prev.Version == v.String() {
		locked = prev.Hashes
	}
	got, served, err := in.installVersion(ctx, cfg, p, a, v, locked)
	if err != nil {
		if f := in.Events.InstallPackageFailure; f != nil {
			f(a, v, err)
		}
		return config.LockedPlugin{}, err
	}
	if f := in.Events.InstallPackageSuccess; f != nil {
		f(a, v, got.origin, served)
	}
	return config.LockedPlugin{
		Version: v.String(), Constraints: p.Constraints,
		Hashes: union(locked, got.hashes), Serves: served,
	}, nil
}

// installVersion installs version v of a below the configuration's
// directory, unless it is there already, and asks it what it serves.
func (in *Installer) installVersion(ctx context.Context, cfg *config.Config, p config.Plugin, a pluginpkg.Address, v *version.Version, locked []string) (obtained, config.Served, error) {
	root := Dir(cfg.Dir)
	got, ok := in.present(root, a, v, locked)
	if ok {
		if f := in.Events.AlreadyInstalled; f != nil {
			f(a, v, got.dir)
		}
	} else {
		if f := in.Events.InstallPackageBegin; f != nil {
			f(a, v, in.Platform)
		}
		var err error
		got, err = in.obtain(ctx, root, a, v, locked)
		if errors.Is(err, errNotLocked) {
			return obtained{}, config.Served{}, fmt.Errorf("plugin %s %s: %w. If the new package is the one to trust, delete the plugin's block from %s and run: %s",
				a, v, err, cfg.LockSource(), config.InitCommand(cfg.Filename, false))
		}
		if err != nil {
			return obtained{}, config.Served{}, fmt.Errorf("plugin %s %s: %w", a, v, err)
		}
	}
	served, err := in.ask(ctx, p, got.dir, a, v)
	return got, served, err
}

// overridden reports whether the CLI configuration's dev_overrides names
// p, saying that it is skipped.
func (in *Installer) overridden(p config.Plugin) bool {
	dir, ok := in.Overrides[strings.ToLower(p.Source)]
	if f := in.Events.OverrideSkipped; ok && f != nil {
		f(p.Source, in.OverridesFrom, dir)
	}
	return ok
}

// present returns the package installed already below root, if the lock
// file's hashes vouch for it.
func (in *Installer) present(root string, a pluginpkg.Address, v *version.Version, locked []string) (obtained, bool) {
	dir := packageDir(root, a, v, in.Platform)
	h1, err := pluginpkg.HashDir(dir)
	if err != nil || !slices.Contains(locked, h1) {
		return obtained{}, false
	}
	return obtained{dir: dir, origin: Origin{AlreadyInstalled: true}}, true
}

// choose picks the version to install: the locked one unless upgrading,
// else the newest the sources have that meets the constraint.
func (in *Installer) choose(ctx context.Context, cfg *config.Config, a pluginpkg.Address, constraint string, prev *config.LockedPlugin, upgrade bool) (*version.Version, error) {
	cons, err := version.NewConstraint(constraint)
	if err != nil {
		return nil, fmt.Errorf("plugin %s: version %q: %w", a, constraint, err)
	}
	if prev != nil && prev.Version != "" && !upgrade {
		v, err := version.NewVersion(prev.Version)
		if err != nil {
			return nil, fmt.Errorf("plugin %s: %s pins version %q: %w", a, cfg.LockSource(), prev.Version, err)
		}
		if !cons.Check(v) {
			return nil, fmt.Errorf("plugin %s: %s pins version %s, which does not meet version = %q. Choose a version that does with: %s",
				a, cfg.LockSource(), v, constraint, config.InitCommand(cfg.Filename, true))
		}
		if f := in.Events.LockedVersion; f != nil {
			f(a, v)
		}
		return v, nil
	}
	if len(in.Sources) == 0 {
		return nil, fmt.Errorf("plugin %s: no installation source: give a plugin_installation block with a filesystem_mirror or a network_mirror in the CLI configuration (%s)", a, in.SourcesFrom)
	}
	if f := in.Events.QueryPackagesBegin; f != nil {
		f(a, constraint)
	}
	v, err := in.newest(ctx, a, constraint, cons)
	if err != nil {
		if f := in.Events.QueryPackagesFailure; f != nil {
			f(a, err)
		}
		return nil, err
	}
	if f := in.Events.QueryPackagesSuccess; f != nil {
		f(a, v)
	}
	return v, nil
}

// newest is the newest version of a the sources have that meets cons.
func (in *Installer) newest(ctx context.Context, a pluginpkg.Address, constraint string, cons version.Constraints) (*version.Version, error) {
	vs, err := in.Sources.Versions(ctx, a)
	if err != nil {
		return nil, fmt.Errorf("plugin %s: %w", a, err)
	}
	for _, v := range vs {
		if cons.Check(v) {
			return v, nil
		}
	}
	return nil, fmt.Errorf("plugin %s: no version meets %q (versions found: %s)", a, constraint, versionList(vs))
}

// ask starts the installed plugin once, pinned to the executable its
// hashed package holds, to learn what it serves; a plugin that speaks no
// protocol version this zarrgw speaks is refused here, with both sides'
// versions in the message.
func (in *Installer) ask(ctx context.Context, p config.Plugin, dir string, a pluginpkg.Address, v *version.Version) (config.Served, error) {
	exe := pluginpkg.Executable(a.Type, v, in.Platform)
	_, sum, err := hashInstalled(dir, exe)
	if err != nil {
		return config.Served{}, fmt.Errorf("plugin %s %s: %w", a, v, err)
	}
	modules, err := pluginpkg.PythonModules(filepath.Join(dir, exe))
	if err != nil {
		return config.Served{}, fmt.Errorf("plugin %s %s: %w", a, v, err)
	}
	spec := launcher.Spec{Name: p.Source, Path: filepath.Join(dir, exe), SHA256: sum, Modules: modules,
		Args: p.Args, Env: p.Env, InheritEnv: p.InheritEnv, OTELHeaders: p.OTELHeaders}
	probe := in.probe
	if probe == nil {
		probe = launcher.Probe
	}
	ms, err := probe(ctx, spec, in.Launch) // a version mismatch names both sides' versions
	if err != nil {
		return config.Served{}, err
	}
	return config.ServedBy(ms), nil
}

func versionList(vs []*version.Version) string {
	if len(vs) == 0 {
		return "none"
	}
	s := make([]string, len(vs))
	for i, v := range vs {
		s[i] = v.String()
	}
	return strings.Join(s, ", ")
}

// union is the hashes of both lists, sorted, each once.
func union(a, b []string) []string {
	out := slices.Concat(a, b)
	slices.Sort(out)
	return slices.Compact(out)
}
