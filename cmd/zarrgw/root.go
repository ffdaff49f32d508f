package main

import (
	"github.com/spf13/cobra"
	"github.com/zarrgw/zarrgw/host/registry"
)

// newRoot is the command line of a zarrgw binary whose extensions are set:
// every command opens, checks, lists and serves extensions through it.
func newRoot(set registry.Set) *cobra.Command {
	root := &cobra.Command{
		Use:           "zarrgw",
		Short:         "Zarr engine and gateway",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	plugins := newPlugins(set)
	plugins.AddCommand(newPluginsList(set))
	root.AddCommand(newInspect(set), newCat(set), newCreate(set), newWrite(set), newCp(set), newValidate(set), newServe(set), newInit(set), plugins, newPluginServe(set))
	return root
}
