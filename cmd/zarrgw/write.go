package main

import (
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/zarrgw/zarrgw/core/array"
	"github.com/zarrgw/zarrgw/core/grid"
	"github.com/zarrgw/zarrgw/core/ndarray"
	"github.com/zarrgw/zarrgw/host/app/location"
	"github.com/zarrgw/zarrgw/host/commands/render"
	"github.com/zarrgw/zarrgw/host/runtime/registry"
)

func newWrite(set registry.Set) *cobra.Command {
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
		RunE: onLocation(set, &configFile, func(cmd *cobra.Command, t *location.Target) error {
			ctx := cmd.Context()
			if err := readOnly(t); err != nil {
				return err
			}
			n, err := openNode(ctx, t, path, true)
			if err != nil {
				return err
			}
			a, err := array.New(ctx, t.Store, n.Path, n.Array, t.Options)
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
			body, err := openBody(in, name, format, a, sel)
			if err != nil {
				return err
			}
			if err := a.WriteStream(ctx, sel, array.StreamOptions{MemoryBudget: memory.bytes}, body.Fill); err != nil {
				return writeError(t, err)
			}
			if err := body.Finish(); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "wrote %d elements to %s\n", ndarray.NumElements(sel.Counts()), a.Name())
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

// openBody reads the input's header, if any, and checks it against the
// array and selection. A regular file must hold exactly what it promises,
// checked before anything is written, so a short file changes nothing.
func openBody(in io.Reader, name, format string, a *array.Array, sel grid.Selection) (*render.Body, error) {
	dt := a.Meta().DataType
	var body *render.Body
	var err error
	switch format {
	case "npy":
		body, err = render.NPYBody(in, name, dt, sel.Counts())
	case "raw":
		body, err = render.RawBody(in, name, dt, sel.Counts())
	default:
		return nil, fmt.Errorf("--format %q: use npy or raw", format)
	}
	if err != nil {
		return nil, err
	}
	if f, ok := in.(*os.File); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() && fi.Size() != body.Size() {
			return nil, fmt.Errorf("%s: holds %d bytes, but a selection of %v %s elements needs %d", name, fi.Size(), sel.Shape(), dt.Name, body.Size())
		}
	}
	return body, nil
}

func openInput(cmd *cobra.Command, from string) (io.ReadCloser, string, error) {
	if from == "-" {
		if f, ok := cmd.InOrStdin().(*os.File); ok {
			return f, "standard input", nil // a regular file's size is checked
		}
		return io.NopCloser(cmd.InOrStdin()), "standard input", nil
	}
	f, err := os.Open(from)
	if err != nil {
		return nil, "", err
	}
	return f, from, nil
}
