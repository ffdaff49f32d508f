package main

import (
	"fmt"
	"log/slog"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/zarrgw/zarrgw/host/launcher"
	"github.com/zarrgw/zarrgw/host/registry"
)

// newPluginServe is "zarrgw plugin serve NAME": zarrgw run by itself (or
// another host) as the plugin of one bundled extension. It is hidden:
// people run plugins through a host, never by hand.
func newPluginServe() *cobra.Command {
	cmd := &cobra.Command{Use: "plugin", Short: "Run as a plugin (used by zarrgw itself)", Hidden: true}
	cmd.AddCommand(&cobra.Command{
		Use:   "serve NAME",
		Short: "Serve one bundled codec, store or transformer as a plugin over stdin/stdout handshake",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return registry.ServeBundled(args[0])
		},
	})
	return cmd
}

// newPluginsList is "zarrgw plugins list": every bundled extension, and
// the extensions of the plugin binaries given with --plugin, which are
// started to ask them.
func newPluginsList() *cobra.Command {
	var binaries []string
	cmd := &cobra.Command{
		Use:   "list [--plugin PATH[@SHA256]]...",
		Short: "List bundled extensions and what the given plugin binaries serve",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			// Plugin logs matter here only when something goes wrong.
			logger := slog.New(slog.NewTextHandler(cmd.ErrOrStderr(), &slog.HandlerOptions{Level: slog.LevelWarn}))
			l := launcher.New(launcher.Options{Logger: logger})
			defer l.Close()
			for _, b := range binaries {
				if err := addBinary(l, b); err != nil {
					return err
				}
			}
			var entries []launcher.Entry
			for _, m := range registry.Manifests() {
				entries = append(entries, launcher.Entry{Manifest: m})
			}
			entries = append(entries, l.List(cmd.Context())...)
			return launcher.WriteTable(cmd.OutOrStdout(), entries)
		},
	}
	cmd.Flags().StringArrayVar(&binaries, "plugin", nil, "a plugin binary to start and list, pinned as PATH@SHA256 (without a checksum, the file's current one is used)")
	return cmd
}

// addBinary adds PATH or PATH@SHA256 under its file name.
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
	_, err := l.Add(launcher.Spec{Name: path, Path: path, SHA256: sum})
	return err
}
