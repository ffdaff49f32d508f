package app

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"

	"github.com/hashicorp/go-version"

	"github.com/zarrgw/zarrgw/host/install"
	"github.com/zarrgw/zarrgw/host/install/cliconfig"
	"github.com/zarrgw/zarrgw/host/runtime/config"
	"github.com/zarrgw/zarrgw/host/runtime/launcher"
	"github.com/zarrgw/zarrgw/host/runtime/pluginpkg"
)

// CLIConfigEnv is the environment variable naming the CLI configuration
// file, whose installation sources and plugin cache init, lock and
// mirror use.
const CLIConfigEnv = cliconfig.FileEnv

// InitOptions are what `zarrgw init` takes from its flags.
type InitOptions struct {
	File    string // the configuration
	Upgrade bool   // the newest version each constraint allows, whatever the lock file pins
	// Stdout follows the installation step by step and says what became
	// of the lock file; Stderr has the diagnostics and plugins' warnings.
	Stdout, Stderr io.Writer
}

// Init installs the plugins a configuration gives by version, as
// "terraform init" installs providers, and records them in the
// configuration's lock file.
func Init(ctx context.Context, set Set, o InitOptions) error {
	cfg, in, err := loadForLock(set, o.File, config.Options{Installing: true}, o.Stdout, o.Stderr)
	if err != nil {
		return err
	}
	fmt.Fprintln(o.Stdout, "Initializing plugins...")
	lock, err := in.Init(ctx, cfg, o.Upgrade)
	if err != nil {
		return err
	}
	return writeLock(o.Stdout, cfg, lock)
}

// loadForLock loads a configuration for a command that writes its lock
// file, and an installer with the CLI configuration's sources.
func loadForLock(set Set, file string, opts config.Options, stdout, stderr io.Writer) (*config.Config, *install.Installer, error) {
	cli, err := cliconfig.Load(nil)
	if err != nil {
		return nil, nil, err
	}
	opts.Catalog = set.Catalog()
	cfg, diags := config.LoadWith(file, opts)
	if err := cfg.WriteDiagnostics(stderr, diags); err != nil {
		return nil, nil, err
	}
	if diags.HasErrors() {
		return nil, nil, fmt.Errorf("%s: %s", file, diags.Errs()[0])
	}
	return cfg, install.New(cli, progress(stdout, cfg.LockSource()), pluginLaunch(stderr)), nil
}

// progress prints a line to out for each step of the installer that a
// user follows: versions chosen, packages installed, downloaded, hashed
// and mirrored, and plugins skipped.
func progress(out io.Writer, lockFile string) install.Events {
	say := func(format string, args ...any) { fmt.Fprintf(out, format+"\n", args...) }
	return install.Events{
		OverrideSkipped: func(source, cliFile, dir string) {
			say("- Skipping %s: dev_overrides in %s names a development build (%s), which runs without installation or lock entry", source, cliFile, dir)
		},
		LockedVersion: func(a pluginpkg.Address, v *version.Version) {
			say("- Using %s v%s, as %s pins it", a, v, lockFile)
		},
		QueryPackagesBegin: func(a pluginpkg.Address, constraint string) {
			say("- Finding %s versions matching %q...", a, constraint)
		},
		InstallPackageBegin: func(a pluginpkg.Address, v *version.Version, plat pluginpkg.Platform) {
			say("- Installing %s v%s for %s...", a, v, plat)
		},
		FetchPackageBegin: func(_ pluginpkg.Address, _ *version.Version, from install.Location) {
			if from.URL != "" { // a package on this machine is not worth a line
				say("- Downloading %s", from.URL)
			}
		},
		InstallPackageSuccess: func(a pluginpkg.Address, v *version.Version, from install.Origin, served config.Served) {
			say("- Installed %s v%s (%s; serves %s)", a, v, originText(from), served)
		},
		HashPackageSuccess: func(a pluginpkg.Address, v *version.Version, plat pluginpkg.Platform, from install.Location, _ []string) {
			say("- Obtained %s v%s hashes for %s (%s)", a, v, plat, from.Source)
		},
		MirrorPackageSuccess: func(a pluginpkg.Address, v *version.Version, plat pluginpkg.Platform, from install.Location) {
			say("- Mirrored %s v%s for %s (%s)", a, v, plat, from.Source)
		},
	}
}

// originText says where an installed package came from.
func originText(o install.Origin) string {
	switch {
	case o.AlreadyInstalled:
		return "installed already"
	case o.Source != "" && o.CacheDir != "":
		return o.Source + ", into the plugin cache"
	case o.Source != "":
		return o.Source
	default:
		return "plugin cache " + o.CacheDir
	}
}

// pluginLaunch is how commands that start a plugin once (to ask it what it
// serves) launch it: its logs at warning level and above on stderr.
func pluginLaunch(stderr io.Writer) launcher.Options {
	return launcher.Options{Logger: warnings(stderr)}
}

// warnings is a logger of plugins' records at warning level and above,
// as text: what a person running a command needs of them.
func warnings(stderr io.Writer) *slog.Logger {
	return slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
}

// writeLock writes lock beside cfg and says whether it changed what was
// there, which is to be reviewed and committed.
func writeLock(out io.Writer, cfg *config.Config, lock *config.Lock) error {
	path := cfg.LockPath()
	before, err := os.ReadFile(path)
	if err != nil && len(lock.Plugins) == 0 {
		fmt.Fprintf(out, "%s: no plugin to lock\n", cfg.Filename)
		return nil
	}
	if err := config.WriteLock(path, lock); err != nil {
		return err
	}
	after, _ := os.ReadFile(path)
	if cfg.SharedLock() {
		fmt.Fprintf(out, "%s: %d plugins locked. %s has a lock file of its own now; %s, which earlier versions shared between the configurations of %s, is left as it is: remove it once no configuration reads it.\n",
			path, len(lock.Plugins), cfg.Filename, cfg.LockSource(), dirName(cfg.Dir))
		return nil
	}
	if bytes.Equal(before, after) {
		fmt.Fprintf(out, "%s: %d plugins locked, unchanged\n", path, len(lock.Plugins))
		return nil
	}
	fmt.Fprintf(out, "%s: %d plugins locked. zarrgw has changed the versions, hashes or names recorded there:\nreview the changes and commit them with the configuration.\n", path, len(lock.Plugins))
	return nil
}

// dirName names a directory in messages ("." as "this directory").
func dirName(dir string) string {
	if dir == "." || dir == "" {
		return "this directory"
	}
	return dir
}
