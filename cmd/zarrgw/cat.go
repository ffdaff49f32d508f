package main

import (
	"os"

	"github.com/spf13/cobra"

	"github.com/zarrgw/zarrgw/host/app"
)

func newCat(set app.Set) *cobra.Command {
	var path, format, slice, configFile string
	memory := memoryFlag{def: "160MiB"}
	cmd := &cobra.Command{
		Use:   "cat LOCATION --path PATH [--slice SEL] [--format json|npy|raw]",
		Short: "Print an array's contents (or a selection) as JSON, .npy or raw bytes, streamed",
		Example: `  zarrgw cat data.zarr --path t2m
  zarrgw cat data.zarr --path t2m --slice 0:10,5 --format npy > t2m.npy
  zarrgw cat s3://bucket/data.zarr --path t2m --slice ::10,::10 --format raw | od -f
  zarrgw cat -c zarrgw.hcl era5 --path t2m --memory 256MiB`,
		Args: oneLocation,
		RunE: onLocation(set, &configFile, func(cmd *cobra.Command, t *app.Target) error {
			return app.Cat(cmd.Context(), t, app.CatOptions{Path: path, Slice: slice, Format: format, Memory: memory.bytes}, os.Stdout)
		}),
	}
	cmd.Flags().StringVar(&path, "path", "", "node path of the array inside the hierarchy")
	cmd.Flags().StringVar(&format, "format", "json", "output format: json, npy or raw (little-endian elements in C order)")
	addLocationFlags(cmd, &configFile)
	cmd.Flags().StringVar(&slice, "slice", "", "selection in numpy notation, e.g. 0:10,5 (default: everything)")
	addMemoryFlag(cmd, &memory)
	return cmd
}
