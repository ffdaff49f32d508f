package main

import (
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/zarrgw/zarrgw/host/config"
	"github.com/zarrgw/zarrgw/host/registry"
	"github.com/zarrgw/zarrgw/host/stack"
)

func newPlugins(set registry.Set) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "plugins",
		Short: "Manage the plugins a configuration declares",
	}
	cmd.AddCommand(newPluginsLock(set))
	return cmd
}

func newPluginsLock(set registry.Set) *cobra.Command {
	var path string
	cmd := &cobra.Command{
		Use:   "lock --config FILE",
		Short: "Record the SHA-256 of each plugin's binary in " + config.LockFileName + " next to the configuration",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			file, err := configPath(path, args)
			if err != nil {
				return err
			}
			// Each binary is started once, pinned to its checksum, to ask
			// what it serves; the lock records those names beside it.
			logger := slog.New(slog.NewTextHandler(cmd.ErrOrStderr(), &slog.HandlerOptions{Level: slog.LevelWarn}))
			opts := config.Options{Catalog: set.Catalog(), Probe: stack.Probe(cmd.Context(), logger)}
			lock, lockPath, err := config.LockPlugins(file, opts, cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			for _, source := range slices.Sorted(maps.Keys(lock.Plugins)) {
				p := lock.Plugins[source]
				fmt.Fprintf(cmd.OutOrStdout(), "%s: sha256 %s, serves %s\n", source, p.SHA256, describeServed(p.Serves))
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%s: %d plugins locked\n", lockPath, len(lock.Plugins))
			return nil
		},
	}
	addConfigFlag(cmd, &path)
	return cmd
}

// describeServed says what a lock entry records a plugin serves.
func describeServed(s config.Served) string {
	var parts []string
	for _, k := range []struct {
		noun  string
		names []string
	}{{"codec", s.Codecs}, {"store", s.Stores}, {"transformer", s.Transformers}} {
		for _, n := range k.names {
			parts = append(parts, k.noun+" "+n)
		}
	}
	if len(parts) == 0 {
		return "nothing known"
	}
	return strings.Join(parts, ", ")
}
