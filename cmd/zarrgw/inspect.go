package main

import (
	"os"

	"github.com/spf13/cobra"

	"github.com/zarrgw/zarrgw/host/app"
)

func newInspect(set app.Set) *cobra.Command {
	var path, configFile string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "inspect LOCATION [--path PATH] [--json]",
		Short: "Print the tree of a Zarr hierarchy: nodes, shapes, data types, chunks, codecs",
		Example: `  zarrgw inspect data.zarr
  zarrgw inspect data.zarr --path t2m
  zarrgw inspect s3://bucket/data.zarr --json | jq '.nodes[] | select(.kind == "array") | .path'
  zarrgw inspect -c zarrgw.hcl era5`,
		Args: oneLocation,
		RunE: onLocation(set, &configFile, func(cmd *cobra.Command, t *app.Target) error {
			// the tree as it is printed, line by line; the JSON document at once
			w := cmd.OutOrStdout()
			if !asJSON {
				w = os.Stdout
			}
			return app.Inspect(cmd.Context(), t, path, asJSON, w)
		}),
	}
	cmd.Flags().StringVar(&path, "path", "", "node path inside the hierarchy")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON document: format_version, location, nodes (path, kind, zarr_format, shape, data_type, chunks, codecs, ...)")
	addLocationFlags(cmd, &configFile)
	return cmd
}
