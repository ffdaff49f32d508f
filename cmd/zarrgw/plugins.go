package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/zarrgw/zarrgw/host/app"
)

func newPlugins(set app.Set) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "plugins",
		Short: "Manage the plugins a configuration declares",
		Example: `  zarrgw plugins list -c zarrgw.hcl
  zarrgw plugins lock -c zarrgw.hcl
  zarrgw plugins mirror -c zarrgw.hcl ./mirror
  zarrgw plugins package --address example.org/acme/xor --version 1.0.0 --mirror ./mirror bin/zarrgw-codec-xor`,
	}
	cmd.AddCommand(newPluginsLock(set), newPluginsMirror(set), newPluginsPackage())
	return cmd
}

// withPlatforms gives cmd the flags -c FILE and -platform=OS_ARCH
// (repeatable; default: this machine's platform) and runs run with them.
// When fileArg, the file may be given as the argument instead (-config
// FILE, Go's way); otherwise the arguments are run's.
func withPlatforms(cmd *cobra.Command, what string, fileArg bool, run func(cmd *cobra.Command, file string, platforms []app.Platform, args []string) error) {
	var path string
	var names []string
	addConfigFlag(cmd, &path)
	cmd.Flags().StringArrayVar(&names, "platform", nil, what+" (OS_ARCH, such as linux_arm64; repeatable; default: this machine's, "+app.CurrentPlatform().String()+")")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		fileArgs := args
		if !fileArg {
			fileArgs = nil
		}
		file, err := configPath(path, fileArgs)
		if err != nil {
			return err
		}
		platforms := []app.Platform{app.CurrentPlatform()}
		if len(names) > 0 {
			platforms = nil
		}
		for _, n := range names {
			p, err := app.ParsePlatform(n)
			if err != nil {
				return err
			}
			platforms = append(platforms, p)
		}
		return run(cmd, file, platforms, args)
	}
}

func newPluginsLock(set app.Set) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "lock -c FILE [-platform=OS_ARCH]...",
		Short: "Record in the configuration's lock file (NAME.lock.hcl) each plugin binary's SHA-256 and names, and the package hashes of installed plugins",
		Long: `For each plugin given by path, starts its binary once, pinned to its SHA-256, to ask what it
serves, and records both. For each plugin given by version, records the hashes of its packages
for each -platform, fetched from the installation sources (not installed), so that the lock
file vouches for machines of other platforms.

Each configuration file has a lock file of its own beside it: NAME.hcl's is NAME.lock.hcl
(zarrgw.hcl's, zarrgw.lock.hcl). Locking one configuration never changes another's.`,
		Example: `  zarrgw plugins lock -c zarrgw.hcl                 # writes zarrgw.lock.hcl
  zarrgw plugins lock -c prefix.hcl                 # writes prefix.lock.hcl
  zarrgw plugins lock -c zarrgw.hcl -platform=linux_amd64 -platform=darwin_arm64`,
		Args: cobra.MaximumNArgs(1),
	}
	withPlatforms(cmd, "platform to record installed plugins' package hashes for", true,
		func(cmd *cobra.Command, file string, platforms []app.Platform, _ []string) error {
			return app.LockPlugins(cmd.Context(), set, platformsOptions(cmd, file, platforms))
		})
	return cmd
}

// platformsOptions are the options of lock and mirror: their flags, and
// the command's output.
func platformsOptions(cmd *cobra.Command, file string, platforms []app.Platform) app.PlatformsOptions {
	return app.PlatformsOptions{File: file, Platforms: platforms, Stdout: cmd.OutOrStdout(), Stderr: cmd.ErrOrStderr()}
}

func newPluginsMirror(set app.Set) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "mirror -c FILE [-platform=OS_ARCH]... DIR",
		Short: "Fill a mirror directory with the packages of the plugins a configuration installs",
		Long: `Copies the packages of the plugins the configuration gives by version (the versions the lock
file pins, else the newest that meet the constraints) for each -platform into DIR, in the packed
layout of a filesystem mirror, and writes the index.json and VERSION.json documents of the
network mirror protocol beside them: DIR is then a filesystem mirror, and served by any static
HTTP server, a network mirror. Mirroring several configurations into one DIR merges them.`,
		Example: `  zarrgw plugins mirror -c zarrgw.hcl ./mirror
  zarrgw plugins mirror -c zarrgw.hcl -platform=linux_amd64 -platform=linux_arm64 /srv/plugins`,
		Args: cobra.ExactArgs(1),
	}
	withPlatforms(cmd, "platform to mirror packages for", false,
		func(cmd *cobra.Command, file string, platforms []app.Platform, args []string) error {
			return app.MirrorPlugins(cmd.Context(), set, platformsOptions(cmd, file, platforms), args[0])
		})
	return cmd
}

func newPluginsPackage() *cobra.Command {
	var address, ver, platformName, output, mirror string
	cmd := &cobra.Command{
		Use:   "package --address HOST/NAMESPACE/TYPE --version VERSION [--platform OS_ARCH] [--output DIR | --mirror DIR] ENTRY [FILE_OR_DIR...]",
		Short: "Build a plugin's package (zarrgw-plugin-TYPE_VERSION_OS_ARCH.zip) from its executable and the files it needs",
		Long: `Writes zarrgw-plugin-TYPE_VERSION_OS_ARCH.zip, holding ENTRY as the executable
zarrgw-plugin-TYPE_vVERSION, into --output (default: the current directory), or with --mirror into
that mirror directory, in the packed layout, with its network mirror documents updated: what
"zarrgw init" installs from.

ENTRY is the plugin's binary or, for a plugin in an interpreted language, its entry script (with a
#! line, such as #!/usr/bin/python3). Each FILE_OR_DIR is packed beside it: a file under its base
name, a directory under its base name with everything under it, where the script finds them (a
Python script imports the modules and packages beside it). Files keep whether they are executable.
Python's bytecode caches (__pycache__, *.pyc) are left out. Refused: two files or directories of one
name, or one named as the executable; a symbolic link inside a directory that leads out of it;
anything but files and directories. The lock file's h1: hash covers every file, so an installed
plugin whose script or modules changed is refused like a changed binary.`,
		Example: `  zarrgw plugins package --address example.org/acme/xor --version 1.0.0 bin/zarrgw-codec-xor
  zarrgw plugins package --address example.org/acme/xor --version 1.0.0 --platform linux_arm64 --mirror ./mirror build/linux_arm64/zarrgw-codec-xor
  # a Python plugin: its script, its module, and the SDK package it imports
  zarrgw plugins package --address example.org/acme/xorpy --version 1.0.0 xorpy/plugin.py xorpy/xor_codec.py zarrgw/pluginapi/python/zarrgw_plugin`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			plat := app.CurrentPlatform()
			if platformName != "" {
				var err error
				if plat, err = app.ParsePlatform(platformName); err != nil {
					return err
				}
			}
			if address == "" || ver == "" {
				return fmt.Errorf("give the plugin's --address and --version")
			}
			dir, toMirror := output, mirror != ""
			if toMirror {
				dir = mirror
			}
			pkg, err := app.PackagePlugin(app.PackageOptions{Entry: args[0], Files: args[1:], Address: address, Version: ver,
				Platform: plat, Dir: dir, Mirror: toMirror})
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%s\n  %s\n  %s\n", pkg.Path, pkg.Hashes[0], pkg.Hashes[1])
			return nil
		},
	}
	cmd.Flags().StringVar(&address, "address", "", "the plugin's source address, HOST/NAMESPACE/TYPE")
	cmd.Flags().StringVar(&ver, "version", "", "the plugin's version, such as 1.2.0")
	cmd.Flags().StringVar(&platformName, "platform", "", "the platform ENTRY was built for, OS_ARCH (default: this machine's, "+app.CurrentPlatform().String()+")")
	cmd.Flags().StringVar(&output, "output", ".", "the directory to write the package to")
	cmd.Flags().StringVar(&mirror, "mirror", "", "a mirror directory to publish the package into instead")
	return cmd
}
