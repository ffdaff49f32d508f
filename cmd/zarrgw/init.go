package main

import (
	"bytes"
	"fmt"
	"io"
	"log/slog"
	"os"

	"github.com/hashicorp/go-version"
	"github.com/spf13/cobra"

	"github.com/zarrgw/zarrgw/host/install"
	"github.com/zarrgw/zarrgw/host/install/cliconfig"
	"github.com/zarrgw/zarrgw/host/runtime/config"
	"github.com/zarrgw/zarrgw/host/runtime/launcher"
	"github.com/zarrgw/zarrgw/host/runtime/pluginpkg"
	"github.com/zarrgw/zarrgw/host/runtime/registry"
)

// newInit is "zarrgw init": install the plugins a configuration gives by
// version, as "terraform init" installs providers, and record them in the
// lock file.
func newInit(set registry.Set) *cobra.Command {
	var path string
	var upgrade bool
	cmd := &cobra.Command{
		Use:   "init -c FILE [-upgrade]",
		Short: "Install the plugins a configuration gives by version, and record them in its lock file (NAME.lock.hcl)",
		Long: `Installs each plugin whose block gives a version constraint: the version the lock file
pins, or with -upgrade (or when it pins none) the newest that meets the constraint, from the
installation sources of the CLI configuration ($` + cliconfig.FileEnv + `), through its plugin
cache. Each package is checked against the hashes its source states and the lock file records,
unpacked into .zarrgw/plugins beside the configuration, and started once to ask what it serves.
A plugin the CLI configuration's dev_overrides names is skipped: its development build runs as it is.

Each configuration file has a lock file of its own beside it: NAME.hcl's is NAME.lock.hcl
(zarrgw.hcl's, zarrgw.lock.hcl), so configurations sharing a directory lock independently. A
configuration without one yet reads the directory's zarrgw.lock.hcl, which earlier versions
shared, and init then writes its own, leaving that file as it is.`,
		Example: `  zarrgw init -c zarrgw.hcl
  zarrgw init -c zarrgw.hcl -upgrade
  ZARRGW_CLI_CONFIG_FILE=$PWD/cli.hcl zarrgw init -c prefix.hcl   # writes prefix.lock.hcl`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			file, err := configPath(path, args)
			if err != nil {
				return err
			}
			return initPlugins(cmd, set, file, upgrade)
		},
	}
	addConfigFlag(cmd, &path)
	cmd.Flags().BoolVar(&upgrade, "upgrade", false, "move each plugin to the newest version its constraint allows, whatever the lock file pins")
	return cmd
}

func initPlugins(cmd *cobra.Command, set registry.Set, file string, upgrade bool) error {
	out := cmd.OutOrStdout()
	cfg, in, err := loadForLock(cmd, set, file, config.Options{Installing: true})
	if err != nil {
		return err
	}
	fmt.Fprintln(out, "Initializing plugins...")
	lock, err := in.Init(cmd.Context(), cfg, upgrade)
	if err != nil {
		return err
	}
	return writeLock(out, cfg, lock)
}

// loadForLock loads a configuration for a command that writes its lock
// file, and an installer with the CLI configuration's sources.
func loadForLock(cmd *cobra.Command, set registry.Set, file string, opts config.Options) (*config.Config, *install.Installer, error) {
	cli, err := cliconfig.Load(nil)
	if err != nil {
		return nil, nil, err
	}
	opts.Catalog = set.Catalog()
	cfg, diags := config.LoadWith(file, opts)
	if err := cfg.WriteDiagnostics(cmd.ErrOrStderr(), diags); err != nil {
		return nil, nil, err
	}
	if diags.HasErrors() {
		return nil, nil, fmt.Errorf("%s: %s", file, diags.Errs()[0])
	}
	return cfg, install.New(cli, progress(cmd.OutOrStdout(), cfg.LockSource()), pluginLaunch(cmd.ErrOrStderr())), nil
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
	return launcher.Options{Logger: slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))}
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
