package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/zarrgw/zarrgw/host/config"
	"github.com/zarrgw/zarrgw/host/registry"
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
			lock, lockPath, err := config.LockPlugins(file, config.Options{Catalog: set.Catalog()}, cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%s: %d plugins locked\n", lockPath, len(lock.Plugins))
			return nil
		},
	}
	addConfigFlag(cmd, &path)
	return cmd
}
