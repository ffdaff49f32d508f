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

	"github.com/zarrgw/zarrgw/core/array"
	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/dtype"
	"github.com/zarrgw/zarrgw/core/hierarchy"
	"github.com/zarrgw/zarrgw/core/meta"
	"github.com/zarrgw/zarrgw/host/app/location"
	"github.com/zarrgw/zarrgw/host/runtime/registry"
)

// defaultCodecs are those of a new array when neither --codecs nor the
// dataset names any: zarr-python's default for fixed-size types.
const defaultCodecs = `[{"name":"bytes","configuration":{"endian":"little"}},{"name":"zstd","configuration":{"level":0,"checksum":false}}]`

func newCreate(set registry.Set) *cobra.Command {
	var configFile, path, codecs string
	var spec arraySpec
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
			// Checked before anything is created: a directory is made only
			// for an array that can be stored in it (a dataset's codecs
			// are known once it is open).
			if configFile != "" {
				_, err := newArrayMeta(spec)
				return err
			}
			if _, err := checkedArray(cmd.Context(), spec, path, codecs, nil, location.DirectoryOptions(set)); err != nil {
				return err
			}
			return makeDirectory(configFile, args[0])
		},
		RunE: onLocation(set, &configFile, func(cmd *cobra.Command, t *location.Target) error {
			ctx := cmd.Context()
			if err := readOnly(t); err != nil {
				return err
			}
			m, err := checkedArray(ctx, spec, path, codecs, t.Codecs, t.Options)
			if err != nil {
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
	f.StringVar(&spec.shape, "shape", "", "shape, comma-separated")
	f.StringVar(&spec.chunks, "chunks", "", "chunk shape, comma-separated (default: the shape)")
	f.StringVar(&spec.dims, "dimension-names", "", "a name per dimension, comma-separated (v3 dimension_names; xarray's dimensions)")
	f.StringVar(&spec.attrs, "attrs", "", `attributes as a JSON object, e.g. '{"units":"K"}'`)
	f.StringVar(&spec.dtype, "dtype", "", "data type, as named in v3 metadata: "+strings.Join(createTypes, ", ")+", or rN (N bits of raw bytes)")
	f.StringVar(&spec.fill, "fill-value", "", "fill value as JSON, as in zarr.json (default: zero)")
	f.StringVar(&codecs, "codecs", "", "codec chain as the JSON list of zarr.json")
	for _, name := range []string{"path", "shape", "dtype"} {
		cmd.MarkFlagRequired(name)
	}
	return cmd
}

// arraySpec is the new array as create's flags give it.
type arraySpec struct {
	shape, chunks, dtype, fill, dims, attrs string
}

func newArrayMeta(spec arraySpec) (*meta.ArrayMeta, error) {
	dt, err := dtype.ParseV3(spec.dtype)
	if err != nil || dt.Variable() {
		return nil, dtypeError(spec.dtype)
	}
	s, err := parseDims("--shape", spec.shape)
	if err != nil {
		return nil, err
	}
	c := s
	if spec.chunks != "" {
		if c, err = parseDims("--chunks", spec.chunks); err != nil {
			return nil, err
		}
	}
	fv := dtype.DefaultFill(dt)
	if spec.fill != "" {
		if fv, err = dtype.ParseFill(dt, json.RawMessage(spec.fill), false); err != nil {
			return nil, fmt.Errorf("--fill-value: %w", err)
		}
	}
	m := &meta.ArrayMeta{
		Format: meta.V3, Shape: s, ChunkShape: c, DataType: dt, FillValue: fv,
		ChunkKey:   meta.ChunkKeyEncoding{Name: "default", Separator: "/"},
		Attributes: json.RawMessage(`{}`),
	}
	if m.DimensionNames, err = dimensionNames(spec.dims, len(s)); err != nil {
		return nil, err
	}
	if spec.attrs != "" {
		var obj map[string]json.RawMessage
		if err := json.Unmarshal([]byte(spec.attrs), &obj); err != nil || obj == nil {
			return nil, fmt.Errorf("--attrs %q: want a JSON object, such as '{\"units\":\"K\"}'", spec.attrs)
		}
		m.Attributes = json.RawMessage(spec.attrs)
	}
	return m, nil
}

// checkedArray is the metadata of the new array at path: spec with the
// codecs of the flag, else the dataset's, else the default, each in the
// form its codec reports, and checked to store a chunk of fill values and
// read it back (array.Probe), so that a chain that cannot store the data
// type is refused before anything is written.
func checkedArray(ctx context.Context, spec arraySpec, path, codecsFlag string, dataset []meta.Extension, opts array.Options) (*meta.ArrayMeta, error) {
	m, err := newArrayMeta(spec)
	if err != nil {
		return nil, err
	}
	if m.Codecs, err = chooseCodecs(codecsFlag, dataset); err != nil {
		return nil, err
	}
	if err := canonicalCodecs(ctx, m.Codecs, opts.Codecs); err != nil {
		return nil, err
	}
	if err := array.Probe(ctx, path, m, opts, 0); err != nil {
		from := "--codecs"
		switch {
		case codecsFlag == "" && len(dataset) > 0:
			from = "the dataset's codec blocks"
		case codecsFlag == "":
			from = "the default codecs"
		}
		return nil, fmt.Errorf("%s: %w", from, err)
	}
	return m, nil
}

// dimensionNames parses --dimension-names: one non-empty name per
// dimension, or none at all.
func dimensionNames(flag string, rank int) ([]*string, error) {
	if flag == "" {
		return nil, nil
	}
	names := strings.Split(flag, ",")
	if len(names) != rank {
		return nil, fmt.Errorf("--dimension-names %q: %d names for %d dimensions", flag, len(names), rank)
	}
	out := make([]*string, rank)
	for i, n := range names {
		n = strings.TrimSpace(n)
		if n == "" {
			return nil, fmt.Errorf("--dimension-names %q: name %d is empty", flag, i+1)
		}
		out[i] = &n
	}
	return out, nil
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
