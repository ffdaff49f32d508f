package main

import (
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/zarrgw/zarrgw/core/grid"
	"github.com/zarrgw/zarrgw/core/hierarchy"
	"github.com/zarrgw/zarrgw/host/location"
	"github.com/zarrgw/zarrgw/host/registry"
	"github.com/zarrgw/zarrgw/host/render"
)

func newWrite(set registry.Set) *cobra.Command {
	var configFile, path, slice, from string
	cmd := &cobra.Command{
		Use:   "write LOCATION --path PATH [--slice SEL] [--from FILE.npy]",
		Short: "Write a .npy document (from a file or standard input) into an array or a selection of it",
		Args:  cobra.ExactArgs(1),
		RunE: onLocation(set, &configFile, func(cmd *cobra.Command, t *location.Target) error {
			ctx := cmd.Context()
			a, err := hierarchy.OpenArray(ctx, t.Store, path, t.Options)
			if err != nil {
				return err
			}
			sel, err := grid.Parse(slice, a.Shape())
			if err != nil {
				return err
			}
			in, name, err := openInput(cmd, from)
			if err != nil {
				return err
			}
			defer in.Close()
			data, err := render.ReadNPY(in, a.Meta().DataType, sel.Counts())
			if err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			if err := a.Write(ctx, sel, data); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "wrote %d elements to %s\n", data.Len(), a.Name())
			return nil
		}),
	}
	addLocationFlags(cmd, &configFile)
	cmd.Flags().StringVar(&path, "path", "", "node path of the array inside the hierarchy")
	cmd.Flags().StringVar(&slice, "slice", "", "selection in numpy notation, e.g. 0:10,5 (default: everything); steps are allowed")
	cmd.Flags().StringVar(&from, "from", "-", "the .npy file to write; - is standard input")
	return cmd
}

func openInput(cmd *cobra.Command, from string) (io.ReadCloser, string, error) {
	if from == "-" {
		return io.NopCloser(cmd.InOrStdin()), "standard input", nil
	}
	f, err := os.Open(from)
	if err != nil {
		return nil, "", err
	}
	return f, from, nil
}
