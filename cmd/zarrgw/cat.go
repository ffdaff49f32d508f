package main

import (
	"bufio"
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
	var memory memoryFlag
	cmd := &cobra.Command{
		Use:   "cat LOCATION",
		Short: "Print an array's contents (or a selection) as JSON, .npy or raw bytes, streamed",
		Args:  cobra.ExactArgs(1),
		RunE: onLocation(set, &configFile, func(cmd *cobra.Command, t *location.Target) error {
			f, err := render.ParseFormat(format)
			if err != nil {
				return err
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
			out := bufio.NewWriterSize(os.Stdout, 1<<16)
			if err := render.Stream(ctx, out, a, sel, f, memory.options()); err != nil {
				out.Flush()
				return err
			}
			return out.Flush()
		}),
	}
	cmd.Flags().StringVar(&path, "path", "", "node path of the array inside the hierarchy")
	cmd.Flags().StringVar(&format, "format", "json", "output format: json, npy or raw (little-endian elements in C order)")
	addLocationFlags(cmd, &configFile)
	cmd.Flags().StringVar(&slice, "slice", "", "selection in numpy notation, e.g. 0:10,5 (default: everything)")
	addMemoryFlag(cmd, &memory)
	return cmd
}
