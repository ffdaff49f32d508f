package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/zarrgw/zarrgw/host/app"
)

func newCreate(set app.Set) *cobra.Command {
	var configFile string
	var o app.CreateOptions
	cmd := &cobra.Command{
		Use:   "create LOCATION --path PATH --shape N,... --chunks N,... --dtype TYPE",
		Short: "Create a Zarr v3 array (and its parent groups); its codecs come from --codecs, else the dataset's codec blocks, else bytes+zstd",
		Long: `Create a Zarr v3 array, and the groups above it that do not exist yet. A LOCATION that is
a directory is created too, with its parents, as zarr.open(mode="w") does; with --config it is a
dataset, whose store must exist (an fs store's root is created only if its block says
create_root = true).`,
		Example: `  zarrgw create data.zarr --path t2m --shape 720,1440 --chunks 90,180 --dtype float32
  zarrgw create data.zarr --path obs/count --shape 1000000 --chunks 65536 --dtype uint32 --fill-value 0
  zarrgw create data.zarr --path t --shape 100,100 --dtype int16 --codecs '[{"name":"bytes"},{"name":"gzip","configuration":{"level":5}}]'
  zarrgw create data.zarr --path t2m --shape 24,720,1440 --chunks 1,720,1440 --dtype float32 --dimension-names time,lat,lon --attrs '{"units":"K"}'
  zarrgw create -c zarrgw.hcl era5 --path t2m --shape 100,100 --dtype float32`,
		Args: oneLocation,
		PreRunE: func(cmd *cobra.Command, args []string) error {
			return app.PrepareCreate(cmd.Context(), set, configFile, args[0], o)
		},
		RunE: onLocation(set, &configFile, func(cmd *cobra.Command, t *app.Target) error {
			c, err := app.Create(cmd.Context(), t, o)
			if err != nil {
				return err
			}
			chunks := fmt.Sprint(c.Chunks)
			if strings.HasPrefix(c.Grid, "rectilinear") {
				chunks = c.Grid
			}
			fmt.Fprintf(cmd.OutOrStdout(), "created %s: shape %v, chunks %s, %s, codecs %s\n",
				c.Path, c.Shape, chunks, c.DataType, strings.Join(c.Codecs, "+"))
			return nil
		}),
	}
	addLocationFlags(cmd, &configFile)
	f := cmd.Flags()
	f.StringVar(&o.Path, "path", "", "node path of the new array inside the hierarchy")
	f.StringVar(&o.Shape, "shape", "", "shape, comma-separated")
	f.StringVar(&o.Chunks, "chunks", "", "chunk shape, comma-separated (default: the shape); a rectilinear grid: edges per dimension joined by +, LENGTH*COUNT for runs, e.g. 10*5+5+5,15+15")
	f.StringVar(&o.DimensionNames, "dimension-names", "", "a name per dimension, comma-separated (v3 dimension_names; xarray's dimensions)")
	f.StringVar(&o.Attributes, "attrs", "", `attributes as a JSON object, e.g. '{"units":"K"}'`)
	f.StringVar(&o.DataType, "dtype", "", "data type, as named in v3 metadata: "+strings.Join(app.CreateTypes, ", ")+", or rN (N bits of raw bytes)")
	f.StringVar(&o.FillValue, "fill-value", "", "fill value as JSON, as in zarr.json (default: zero)")
	f.StringVar(&o.Codecs, "codecs", "", "codec chain as the JSON list of zarr.json")
	for _, name := range []string{"path", "shape", "dtype"} {
		cmd.MarkFlagRequired(name)
	}
	return cmd
}
