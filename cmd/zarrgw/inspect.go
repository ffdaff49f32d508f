package main

import (
	"encoding/json"
	"os"

	"github.com/spf13/cobra"

	"github.com/zarrgw/zarrgw/host/app/location"
	"github.com/zarrgw/zarrgw/host/commands/render"
	"github.com/zarrgw/zarrgw/host/runtime/registry"
)

// inspectJSON is what "zarrgw inspect --json" prints. Field names are
// stable; new fields may be added.
type inspectJSON struct {
	FormatVersion string `json:"format_version"` // "1"
	// Location is what was opened: a directory (absolute), a URL, or a
	// dataset with its declaration.
	Location string `json:"location"`
	// Nodes are the node --path names and everything below it, each
	// group before its children.
	Nodes []render.NodeJSON `json:"nodes"`
}

func newInspect(set registry.Set) *cobra.Command {
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
		RunE: onLocation(set, &configFile, func(cmd *cobra.Command, t *location.Target) error {
			ctx := cmd.Context()
			n, err := openNode(ctx, t, path, false)
			if err != nil {
				return err
			}
			if !asJSON {
				return render.Tree(ctx, os.Stdout, t.Store, n, t.Options)
			}
			nodes, err := render.Nodes(ctx, t.Store, n, t.Options)
			if err != nil {
				return err
			}
			enc := json.NewEncoder(cmd.OutOrStdout())
			enc.SetIndent("", "  ")
			return enc.Encode(inspectJSON{FormatVersion: "1", Location: t.Where, Nodes: nodes})
		}),
	}
	cmd.Flags().StringVar(&path, "path", "", "node path inside the hierarchy")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON document: format_version, location, nodes (path, kind, zarr_format, shape, data_type, chunks, codecs, ...)")
	addLocationFlags(cmd, &configFile)
	return cmd
}
