package main

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/zarrgw/zarrgw/core/extension"
	"github.com/zarrgw/zarrgw/host/app/location"
	"github.com/zarrgw/zarrgw/host/runtime/config"
	"github.com/zarrgw/zarrgw/host/runtime/launcher"
	"github.com/zarrgw/zarrgw/host/runtime/pluginpkg"
	"github.com/zarrgw/zarrgw/host/runtime/registry"
	"github.com/zarrgw/zarrgw/host/runtime/stack"
)

// newPluginServe is "zarrgw plugin serve NAME": zarrgw run by itself (or
// another host) as the plugin of one of its extensions. It is hidden:
// people run plugins through a host, never by hand.
func newPluginServe(set registry.Set) *cobra.Command {
	var kind string
	cmd := &cobra.Command{Use: "plugin", Short: "Run as a plugin (used by zarrgw itself)", Hidden: true,
		Example: "  zarrgw plugin serve zstd   # what a plugin block's args run; never by hand"}
	serve := &cobra.Command{
		Use:   "serve [--kind KIND] NAME",
		Short: "Serve one bundled codec, store or transformer as a plugin over stdin/stdout handshake",
		Example: `  # in a configuration, a bundled codec run out of process:
  #   plugin "zarrgw.dev/builtin/zstd" { path = "/usr/local/bin/zarrgw", args = ["plugin", "serve", "zstd"] }`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return set.Serve(extension.Kind(kind), args[0])
		},
	}
	serve.Flags().StringVar(&kind, "kind", "", "codec, store or transformer (default: whichever has the name)")
	cmd.AddCommand(serve)
	return cmd
}

// newPluginsList is "zarrgw plugins list": every bundled extension, and
// the extensions of the plugins a configuration declares and of the
// plugin binaries given with --plugin, which are started to ask them.
func newPluginsList(set registry.Set) *cobra.Command {
	var binaries []string
	var file string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list [--config FILE] [--plugin PATH[@SHA256]]... [--json]",
		Short: "List bundled extensions and what a configuration's plugins and the given plugin binaries serve",
		Long: `List bundled extensions and what a configuration's plugins and the given plugin binaries serve,
starting each plugin to ask it. A plugin that cannot say makes the exit status 1.

With --json, one JSON document: format_version, extensions (name, kind, version, aliases, uris,
bundled, plugin, state, pid, restarts, error, overridden_by) and resolution.`,
		Example: `  zarrgw plugins list
  zarrgw plugins list -c zarrgw.hcl
  zarrgw plugins list --plugin ./bin/zarrgw-codec-xor
  zarrgw plugins list --json | jq -r '.extensions[] | select(.kind == "codec") | .name'`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			// Plugin logs matter here only when something goes wrong.
			logger := slog.New(slog.NewTextHandler(cmd.ErrOrStderr(), &slog.HandlerOptions{Level: slog.LevelWarn}))
			l := launcher.New(launcher.Options{Logger: logger})
			defer l.Close()
			if err := addConfigured(cmd, set, l, file); err != nil {
				return err
			}
			for _, b := range binaries {
				if err := addBinary(l, b); err != nil {
					return err
				}
			}
			entries := set.List(cmd.Context(), l)
			write := launcher.WriteTable
			if asJSON {
				write = launcher.WriteJSON
			}
			if err := write(cmd.OutOrStdout(), entries); err != nil {
				return err
			}
			return failedPlugins(entries)
		},
	}
	cmd.Flags().StringArrayVar(&binaries, "plugin", nil, "a plugin binary to start and list, pinned as PATH@SHA256 (without a checksum, the file's current one is used)")
	addConfigFlag(cmd, &file)
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON document (see above)")
	return cmd
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
func addConfigured(cmd *cobra.Command, set registry.Set, l *launcher.Launcher, file string) error {
	if file == "" {
		return nil
	}
	opts, err := location.ConfigOptions(cmd.Context(), set, file, slog.New(slog.DiscardHandler))
	if err != nil {
		return err
	}
	opts.Probe = nil             // listing starts them anyway
	opts.IgnoreStoreRoots = true // and opens no store
	cfg, err := config.Check(file, opts, cmd.ErrOrStderr())
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
