package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/zarrgw/zarrgw/host/app"
)

func newWrite(set app.Set) *cobra.Command {
	var configFile, path, slice, from, format string
	var memory memoryFlag
	cmd := &cobra.Command{
		Use:   "write LOCATION --path PATH [--slice SEL] [--from FILE.npy]",
		Short: "Write a .npy document or raw elements (from a file or standard input) into an array or a selection of it, streamed",
		Example: `  zarrgw write data.zarr --path t2m --slice 0:90,0:180 --from block.npy
  python3 -c 'import numpy, sys; numpy.save(sys.stdout.buffer, numpy.ones((90, 180), "<f4"))' | zarrgw write data.zarr --path t2m --slice 0:90,0:180
  printf 'abcd' | zarrgw write data.zarr --path t --format raw
  zarrgw write -c zarrgw.hcl era5 --path t2m --from t2m.npy`,
		Args: oneLocation,
		RunE: onLocation(set, &configFile, func(cmd *cobra.Command, t *app.Target) error {
			w, err := app.Write(cmd.Context(), t, app.WriteOptions{Path: path, Slice: slice, From: from, Stdin: cmd.InOrStdin(),
				Format: format, Memory: memory.bytes})
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "wrote %d elements to %s\n", w.Elements, w.Array)
			return nil
		}),
	}
	addLocationFlags(cmd, &configFile)
	cmd.Flags().StringVar(&path, "path", "", "node path of the array inside the hierarchy")
	cmd.Flags().StringVar(&slice, "slice", "", "selection in numpy notation, e.g. 0:10,5 (default: everything); steps are allowed")
	cmd.Flags().StringVar(&from, "from", "-", "the file to write; - is standard input")
	cmd.Flags().StringVar(&format, "format", "npy", "input format: npy, or raw (the selection's little-endian elements in C order)")
	addMemoryFlag(cmd, &memory)
	return cmd
}
