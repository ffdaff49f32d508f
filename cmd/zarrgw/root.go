package main

import (
	"github.com/spf13/cobra"
)

func newRoot() *cobra.Command {
	root := &cobra.Command{
		Use:           "zarrgw",
		Short:         "Zarr engine and gateway",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	plugins := newPlugins()
	plugins.AddCommand(newPluginsList())
	root.AddCommand(newInspect(), newCat(), newCreate(), newWrite(), newCp(), newValidate(), newServe(), plugins, newPluginServe())
	return root
}
