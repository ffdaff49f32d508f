package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/zarrgw/zarrgw/core/grid"
	"github.com/zarrgw/zarrgw/core/hierarchy"
	"github.com/zarrgw/zarrgw/host/location"
	"github.com/zarrgw/zarrgw/host/registry"
	"github.com/zarrgw/zarrgw/host/render"
)

func newCat(set registry.Set) *cobra.Command {
	var path, format, slice, configFile string
	cmd := &cobra.Command{
		Use:   "cat LOCATION",
		Short: "Print an array's contents as JSON or .npy",
		Args:  cobra.ExactArgs(1),
		RunE: onLocation(set, &configFile, func(cmd *cobra.Command, t *location.Target) error {
			if format != "json" && format != "npy" {
				return fmt.Errorf("--format %q: use json or npy", format)
			}
			ctx := cmd.Context()
			a, err := hierarchy.OpenArray(ctx, t.Store, path, t.Options)
			if err != nil {
				return err
			}
			sel, err := grid.Parse(slice, a.Shape())
			if err != nil {
				return err
			}
			data, err := a.Read(ctx, sel)
			if err != nil {
				return err
			}
			if format == "npy" {
				return render.NPY(os.Stdout, data)
			}
			m := *a.Meta()
			m.Shape = data.Shape
			return render.JSON(os.Stdout, &m, data)
		}),
	}
	cmd.Flags().StringVar(&path, "path", "", "node path of the array inside the hierarchy")
	cmd.Flags().StringVar(&format, "format", "json", "output format: json or npy")
	addLocationFlags(cmd, &configFile)
	cmd.Flags().StringVar(&slice, "slice", "", "selection in numpy notation, e.g. 0:10,5 (default: everything)")
	return cmd
}
