package main

import (
	"os"

	"github.com/spf13/cobra"

	"github.com/zarrgw/zarrgw/core/hierarchy"
	"github.com/zarrgw/zarrgw/host/location"
	"github.com/zarrgw/zarrgw/host/render"
)

func newInspect() *cobra.Command {
	var path, configFile string
	cmd := &cobra.Command{
		Use:   "inspect LOCATION",
		Short: "Print the tree of a Zarr hierarchy: nodes, shapes, data types, chunks, codecs",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			t, err := location.Resolve(ctx, configFile, args[0], cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			defer t.Close()
			n, err := hierarchy.Open(ctx, t.Store, path)
			if err != nil {
				return err
			}
			return render.Tree(ctx, os.Stdout, t.Store, n, t.Options)
		},
	}
	cmd.Flags().StringVar(&path, "path", "", "node path inside the hierarchy")
	addLocationFlags(cmd, &configFile)
	return cmd
}
