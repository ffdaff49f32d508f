package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/dtype"
	"github.com/zarrgw/zarrgw/core/hierarchy"
	"github.com/zarrgw/zarrgw/core/meta"
	"github.com/zarrgw/zarrgw/host/location"
	"github.com/zarrgw/zarrgw/host/registry"
)

// defaultCodecs are those of a new array when neither --codecs nor the
// dataset names any: zarr-python's default for fixed-size types.
const defaultCodecs = `[{"name":"bytes","configuration":{"endian":"little"}},{"name":"zstd","configuration":{"level":0,"checksum":false}}]`

func newCreate(set registry.Set) *cobra.Command {
	var configFile, path, shape, chunks, dt, fill, codecs string
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
  zarrgw create -c zarrgw.hcl era5 --path t2m --shape 100,100 --dtype float32`,
		Args: oneLocation,
		PreRunE: func(cmd *cobra.Command, args []string) error {
			// Checked before anything is created.
			if _, err := newArrayMeta(shape, chunks, dt, fill); err != nil {
				return err
			}
			return makeDirectory(configFile, args[0])
		},
		RunE: onLocation(set, &configFile, func(cmd *cobra.Command, t *location.Target) error {
			ctx := cmd.Context()
			if err := readOnly(t); err != nil {
				return err
			}
			m, err := newArrayMeta(shape, chunks, dt, fill)
			if err != nil {
				return err
			}
			if m.Codecs, err = chooseCodecs(codecs, t.Codecs); err != nil {
				return err
			}
			if err := canonicalCodecs(ctx, m.Codecs, t.Options.Codecs); err != nil {
				return err
			}
			// Creating over a node would orphan its chunks under new metadata.
			if _, err := hierarchy.Open(ctx, t.Store, path); err == nil {
				return fmt.Errorf("create %s: a node exists there already in %s", path, t.Where)
			} else if !errors.Is(err, hierarchy.ErrNoNode) {
				return err
			}
			if _, err := hierarchy.CreateArray(ctx, t.Store, path, m, t.Options); err != nil {
				return writeError(t, err)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "created %s: shape %v, chunks %v, %s, codecs %s\n",
				path, m.Shape, m.ChunkShape, m.DataType.Name, codecNames(m.Codecs))
			return nil
		}),
	}
	addLocationFlags(cmd, &configFile)
	f := cmd.Flags()
	f.StringVar(&path, "path", "", "node path of the new array inside the hierarchy")
	f.StringVar(&shape, "shape", "", "shape, comma-separated")
	f.StringVar(&chunks, "chunks", "", "chunk shape, comma-separated (default: the shape)")
	f.StringVar(&dt, "dtype", "", "data type, as named in v3 metadata: "+strings.Join(createTypes, ", ")+", or rN (N bits of raw bytes)")
	f.StringVar(&fill, "fill-value", "", "fill value as JSON, as in zarr.json (default: zero)")
	f.StringVar(&codecs, "codecs", "", "codec chain as the JSON list of zarr.json")
	for _, name := range []string{"path", "shape", "dtype"} {
		cmd.MarkFlagRequired(name)
	}
	return cmd
}

func newArrayMeta(shape, chunks, name, fill string) (*meta.ArrayMeta, error) {
	dt, err := dtype.ParseV3(name)
	if err != nil || dt.Variable() {
		return nil, dtypeError(name)
	}
	s, err := parseDims("--shape", shape)
	if err != nil {
		return nil, err
	}
	c := s
	if chunks != "" {
		if c, err = parseDims("--chunks", chunks); err != nil {
			return nil, err
		}
	}
	fv := dtype.DefaultFill(dt)
	if fill != "" {
		if fv, err = dtype.ParseFill(dt, json.RawMessage(fill), false); err != nil {
			return nil, fmt.Errorf("--fill-value: %w", err)
		}
	}
	return &meta.ArrayMeta{
		Format: meta.V3, Shape: s, ChunkShape: c, DataType: dt, FillValue: fv,
		ChunkKey:   meta.ChunkKeyEncoding{Name: "default", Separator: "/"},
		Attributes: json.RawMessage(`{}`),
	}, nil
}

func chooseCodecs(flag string, dataset []meta.Extension) ([]meta.Extension, error) {
	if flag == "" && len(dataset) > 0 {
		return dataset, nil
	}
	if flag == "" {
		flag = defaultCodecs
	}
	exts, err := meta.ParseExtensions(json.RawMessage(flag))
	if err != nil {
		return nil, fmt.Errorf("--codecs: %w", err)
	}
	return exts, nil
}

// canonicalCodecs replaces each configuration with the one its codec
// reports, so the metadata spells out defaults (zstd's checksum, say) that
// other implementations require.
func canonicalCodecs(ctx context.Context, exts []meta.Extension, r codec.Resolver) error {
	for i, e := range exts {
		c, err := r.Codec(ctx, e.Name, e.Configuration)
		if err != nil {
			return fmt.Errorf("codec %q: %w", e.Name, err)
		}
		exts[i].Configuration = c.Configuration()
	}
	return nil
}

func parseDims(flag, s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 0 {
			return nil, fmt.Errorf("%s %q: want comma-separated non-negative integers", flag, s)
		}
		out = append(out, n)
	}
	return out, nil
}

func codecNames(exts []meta.Extension) string {
	names := make([]string, len(exts))
	for i, e := range exts {
		names[i] = e.Name
	}
	return strings.Join(names, "+")
}

// makeDirectory creates the directory a LOCATION names, with its parents,
// unless it is a dataset (with a configuration) or a URL other than
// file://.
func makeDirectory(configFile, loc string) error {
	if configFile != "" {
		return nil
	}
	dir := loc
	if strings.Contains(loc, "://") {
		u, err := url.Parse(loc)
		if err != nil || u.Scheme != "file" {
			return nil // the store's own business, or an error Resolve reports
		}
		dir = u.Host + u.Path
	}
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return fmt.Errorf("location %q: %w", loc, err)
	}
	return nil
}
