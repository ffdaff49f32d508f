package main

import (
	"context"
	"os"

	"github.com/spf13/cobra"

	"github.com/zarrgw/zarrgw/core/array"
	"github.com/zarrgw/zarrgw/core/hierarchy"
	"github.com/zarrgw/zarrgw/host/location"
	"github.com/zarrgw/zarrgw/host/registry"
	"github.com/zarrgw/zarrgw/host/render"
)

func newInspect() *cobra.Command {
	var path string
	cmd := &cobra.Command{
		Use:   "inspect LOCATION",
		Short: "Print the tree of a Zarr hierarchy: nodes, shapes, data types, chunks, codecs",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := context.Background()
			s, err := location.Open(args[0])
			if err != nil {
				return err
			}
			defer s.Close()
			n, err := hierarchy.Open(ctx, s, path)
			if err != nil {
				return err
			}
			return render.Tree(ctx, os.Stdout, s, n, array.Options{Codecs: registry.Codecs()})
		},
	}
	cmd.Flags().StringVar(&path, "path", "", "node path inside the hierarchy")
	return cmd
}
