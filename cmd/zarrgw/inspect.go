package main

import (
	"os"

	"github.com/spf13/cobra"

	"github.com/zarrgw/zarrgw/core/hierarchy"
	"github.com/zarrgw/zarrgw/host/location"
	"github.com/zarrgw/zarrgw/host/registry"
	"github.com/zarrgw/zarrgw/host/render"
)

func newInspect(set registry.Set) *cobra.Command {
	var path, configFile string
	cmd := &cobra.Command{
		Use:   "inspect LOCATION",
		Short: "Print the tree of a Zarr hierarchy: nodes, shapes, data types, chunks, codecs",
		Args:  cobra.ExactArgs(1),
		RunE: onLocation(set, &configFile, func(cmd *cobra.Command, t *location.Target) error {
			ctx := cmd.Context()
			n, err := hierarchy.Open(ctx, t.Store, path)
			if err != nil {
				return err
			}
			return render.Tree(ctx, os.Stdout, t.Store, n, t.Options)
		}),
	}
	cmd.Flags().StringVar(&path, "path", "", "node path inside the hierarchy")
	addLocationFlags(cmd, &configFile)
	return cmd
}
