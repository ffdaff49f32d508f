package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/zarrgw/zarrgw/core/extension"
	"github.com/zarrgw/zarrgw/host/app/location"
	"github.com/zarrgw/zarrgw/host/install"
	"github.com/zarrgw/zarrgw/host/runtime/config"
	"github.com/zarrgw/zarrgw/host/runtime/launcher"
	"github.com/zarrgw/zarrgw/host/runtime/pluginpkg"
	"github.com/zarrgw/zarrgw/host/runtime/stack"
)

// Platform is an OS and architecture plugin packages are built for,
// written OS_ARCH (linux_arm64).
type Platform = pluginpkg.Platform

// ParsePlatform reads OS_ARCH.
func ParsePlatform(s string) (Platform, error) { return pluginpkg.ParsePlatform(s) }

// CurrentPlatform is this machine's platform.
func CurrentPlatform() Platform { return pluginpkg.Current() }

// PlatformsOptions are what `zarrgw plugins lock` and `plugins mirror`
// take from their flags.
type PlatformsOptions struct {
	File      string     // the configuration
	Platforms []Platform // to record package hashes for, or to mirror packages for
	// Stdout has what was locked or mirrored; Stderr the diagnostics and
	// plugins' warnings.
	Stdout, Stderr io.Writer
}

// LockPlugins records in a configuration's lock file each plugin binary's
// SHA-256 and what it serves, and the package hashes, for each platform,
// of the plugins it installs.
func LockPlugins(ctx context.Context, set Set, o PlatformsOptions) error {
	// Each binary given by path is started once, pinned to its checksum,
	// to ask what it serves; the lock records those names beside it.
	opts := config.Options{Catalog: set.Catalog(), Probe: stack.Probe(ctx, pluginLaunch(o.Stderr).Logger)}
	cfg, lock, err := config.LockPlugins(o.File, opts, o.Stderr)
	if err != nil {
		return err
	}
	for _, source := range slices.Sorted(maps.Keys(lock.Plugins)) {
		if p := lock.Plugins[source]; p.SHA256 != "" {
			fmt.Fprintf(o.Stdout, "%s: sha256 %s, serves %s\n", source, p.SHA256, p.Serves)
		}
	}
	if slices.ContainsFunc(cfg.Plugins, config.Plugin.Installed) {
		_, in, err := loadForLock(set, o.File, config.Options{Installing: true}, o.Stdout, o.Stderr)
		if err != nil {
			return err
		}
		if err := in.LockPlatforms(ctx, cfg, lock, o.Platforms); err != nil {
			return err
		}
	}
	return writeLock(o.Stdout, cfg, lock)
}

// MirrorPlugins copies into dir the packages, for each platform, of the
// plugins a configuration installs (the versions its lock file pins,
// else the newest its constraints allow), making dir a plugin mirror.
func MirrorPlugins(ctx context.Context, set Set, o PlatformsOptions, dir string) error {
	cfg, in, err := loadForLock(set, o.File, config.Options{Installing: true}, o.Stdout, o.Stderr)
	if err != nil {
		return err
	}
	lock, diags := config.LoadLock(cfg.LockSource())
	if diags.HasErrors() {
		return fmt.Errorf("%s: %w", cfg.LockSource(), diags)
	}
	return in.Mirror(ctx, cfg, lock, dir, o.Platforms)
}

// PackageOptions are what `zarrgw plugins package` takes from its flags.
type PackageOptions struct {
	Entry            string   // the plugin's executable or entry script
	Files            []string // files and directories packed beside it
	Address, Version string   // HOST/NAMESPACE/TYPE, and 1.2.0
	Platform         Platform // the platform Entry was built for
	Dir              string   // where the package goes
	Mirror           bool     // Dir is a mirror: packed layout, its documents updated
}

// Package is a plugin package written: its path, and its hashes as the
// lock file records them (h1:, zh:).
type Package struct {
	Path   string
	Hashes []string
}

// PackagePlugin builds a plugin's package from its executable and the
// files it needs: what "zarrgw init" installs from.
func PackagePlugin(o PackageOptions) (Package, error) {
	path, hashes, err := install.Package(o.Entry, o.Address, o.Version, o.Platform, o.Dir, o.Mirror, o.Files...)
	return Package{Path: path, Hashes: hashes}, err
}

// ListOptions are what `zarrgw plugins list` takes from its flags.
type ListOptions struct {
	File     string   // a configuration whose plugins are listed too, if given
	Binaries []string // plugin binaries to start and list, PATH or PATH@SHA256
	JSON     bool     // one JSON document rather than a table
	// Stdout has the listing; Stderr the diagnostics and plugins' warnings.
	Stdout, Stderr io.Writer
}

// ListPlugins lists the bundled extensions, and what the plugins of a
// configuration and the given plugin binaries serve, starting each to ask
// it. The error names each plugin that could not say.
func ListPlugins(ctx context.Context, set Set, o ListOptions) error {
	// Plugin logs matter here only when something goes wrong.
	l := launcher.New(launcher.Options{Logger: warnings(o.Stderr)})
	defer l.Close()
	if err := addConfigured(ctx, set, l, o.File, o.Stderr); err != nil {
		return err
	}
	for _, b := range o.Binaries {
		if err := addBinary(l, b); err != nil {
			return err
		}
	}
	entries := set.List(ctx, l)
	write := launcher.WriteTable
	if o.JSON {
		write = launcher.WriteJSON
	}
	if err := write(o.Stdout, entries); err != nil {
		return err
	}
	return failedPlugins(entries)
}

// failedPlugins is an error naming each plugin that could not say what it
// serves, so that a listing with a broken plugin exits non-zero.
func failedPlugins(entries []launcher.Entry) error {
	var errs []error
	for _, e := range entries {
		if e.Plugin != "" && e.Status.Err != nil && (e.Manifest.Name == "" || e.Status.State == launcher.Failed) {
			errs = append(errs, e.Status.Err)
		}
	}
	return errors.Join(errs...)
}

// addConfigured adds the plugins a configuration declares, if one is given.
func addConfigured(ctx context.Context, set Set, l *launcher.Launcher, file string, stderr io.Writer) error {
	if file == "" {
		return nil
	}
	opts, err := location.ConfigOptions(ctx, set, file, slog.New(slog.DiscardHandler))
	if err != nil {
		return err
	}
	opts.Probe = nil             // listing starts them anyway
	opts.IgnoreStoreRoots = true // and opens no store
	cfg, err := config.Check(file, opts, stderr)
	if err != nil {
		return err
	}
	for _, p := range cfg.Plugins {
		if _, err := l.Add(stack.Spec(cfg, p)); err != nil {
			return fmt.Errorf("%s: %w", p.DeclRange, err) // the error names the plugin
		}
	}
	return nil
}

// addBinary adds PATH or PATH@SHA256 under its file name. A Python
// script's modules are taken as they are now.
func addBinary(l *launcher.Launcher, arg string) error {
	path, sum, pinned := strings.Cut(arg, "@")
	if !pinned {
		var err error
		if sum, err = launcher.Checksum(path); err != nil {
			return err
		}
	}
	if _, err := os.Stat(path); err != nil {
		return fmt.Errorf("plugin %s: %w", path, err)
	}
	modules, err := pluginpkg.PythonModules(path)
	if err != nil {
		return fmt.Errorf("plugin %s: %w", path, err)
	}
	_, err = l.Add(launcher.Spec{Name: path, Path: path, SHA256: sum, Modules: modules})
	return err
}

// ServePlugin serves one bundled extension as a plugin, over the
// handshake on stdin and stdout, until the host that started it ends it.
// kind is codec, store or transformer, or "" for whichever has the name.
func ServePlugin(set Set, kind, name string) error {
	return set.Serve(extension.Kind(kind), name)
}
