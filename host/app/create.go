package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"

	"github.com/zarrgw/zarrgw/core/array"
	"github.com/zarrgw/zarrgw/core/dtype"
	"github.com/zarrgw/zarrgw/core/hierarchy"
	"github.com/zarrgw/zarrgw/core/meta"
	"github.com/zarrgw/zarrgw/host/app/location"
	"github.com/zarrgw/zarrgw/host/commands/render"
)

// CreateOptions are a new array as `zarrgw create` gives it, as typed.
type CreateOptions struct {
	Path           string // the array's node path
	Shape, Chunks  string // comma-separated (Chunks: see parseChunks); Chunks "" for the shape
	DataType       string // a v3 name: int16, float32, r8 ...
	FillValue      string // JSON, as in zarr.json; "" for zero
	DimensionNames string // comma-separated; "" for none
	Attributes     string // a JSON object; "" for {}
	// Codecs is the chain as zarr.json lists it; "" for the dataset's
	// codec blocks, else hierarchy.DefaultCodecs.
	Codecs string
}

// Created describes the array Create made.
type Created struct {
	Path          string
	Shape, Chunks []int
	// Grid is the chunk grid as inspect prints it (a rectilinear
	// grid's edges, where Chunks holds its longest chunks).
	Grid     string
	DataType string
	Codecs   []string // names, in order
}

// PrepareCreate checks the new array before anything is created: a
// directory LOCATION (no configFile) is made, with its parents, only for
// an array that can be stored in it; a dataset's codecs are known only
// once it is open, so with configFile only the array's own options are
// checked here.
func PrepareCreate(ctx context.Context, set Set, configFile, loc string, o CreateOptions) error {
	if configFile != "" {
		_, err := o.spec()
		return err
	}
	if _, err := o.checkedArray(ctx, nil, location.DirectoryOptions(set)); err != nil {
		return err
	}
	return makeDirectory(loc)
}

// Create makes the array o describes in t, and the groups above it that
// do not exist yet. A read-only dataset is refused, and so is a node
// there already: new metadata over it would orphan its chunks.
func Create(ctx context.Context, t *Target, o CreateOptions) (Created, error) {
	if err := ReadOnly(t); err != nil {
		return Created{}, err
	}
	m, err := o.checkedArray(ctx, t.Codecs, t.Options)
	if err != nil {
		return Created{}, err
	}
	if _, err := hierarchy.Open(ctx, t.Store, o.Path); err == nil {
		return Created{}, fmt.Errorf("create %s: a node exists there already in %s", o.Path, t.Where)
	} else if !errors.Is(err, hierarchy.ErrNoNode) {
		return Created{}, err
	}
	if _, err := hierarchy.CreateArray(ctx, t.Store, o.Path, m, t.Options); err != nil {
		return Created{}, WriteError(t, err)
	}
	c := Created{Path: o.Path, Shape: m.Shape, Chunks: m.ChunkShape, Grid: render.Describe(m).Chunks, DataType: m.DataType.Name}
	for _, e := range m.Codecs {
		c.Codecs = append(c.Codecs, e.Name)
	}
	return c, nil
}

// spec reads the options into the new array's description, its codecs
// left to choose.
func (o CreateOptions) spec() (hierarchy.ArraySpec, error) {
	var s hierarchy.ArraySpec
	dt, err := dtype.ParseV3(o.DataType)
	if strings.HasPrefix(strings.TrimSpace(o.DataType), "{") {
		// a data type object, such as a struct's, as zarr.json holds it
		if dt, err = meta.ParseV3DataType(json.RawMessage(o.DataType)); err != nil {
			return s, fmt.Errorf("--dtype: %w", err)
		}
	}
	if err != nil || dt.Variable() {
		return s, DtypeError(o.DataType)
	}
	s.DataType = dt
	if s.Shape, err = parseDims("--shape", o.Shape); err != nil {
		return s, err
	}
	if s.Chunks, s.ChunkEdges, err = parseChunks("--chunks", o.Chunks); err != nil {
		return s, err
	}
	if o.FillValue != "" {
		if s.FillValue, err = dtype.ParseFill(dt, json.RawMessage(o.FillValue), false); err != nil {
			return s, fmt.Errorf("--fill-value: %w", err)
		}
	}
	if s.DimensionNames, err = dimensionNames(o.DimensionNames, len(s.Shape)); err != nil {
		return s, err
	}
	if o.Attributes != "" {
		var obj map[string]json.RawMessage
		if err := json.Unmarshal([]byte(o.Attributes), &obj); err != nil || obj == nil {
			return s, fmt.Errorf("--attrs %q: want a JSON object, such as '{\"units\":\"K\"}'", o.Attributes)
		}
		s.Attributes = json.RawMessage(o.Attributes)
	}
	return s, nil
}

// checkedArray is the metadata of the new array: with the codecs of the
// option, else the dataset's, else the default, each in the form its
// codec reports, and checked to store a chunk of fill values and read it
// back (array.Probe), so that a chain that cannot store the data type is
// refused before anything is written.
func (o CreateOptions) checkedArray(ctx context.Context, dataset []meta.Extension, opts array.Options) (*meta.ArrayMeta, error) {
	s, err := o.spec()
	if err != nil {
		return nil, err
	}
	from := "--codecs"
	switch {
	case o.Codecs != "":
		if s.Codecs, err = meta.ParseExtensions(json.RawMessage(o.Codecs)); err != nil {
			return nil, fmt.Errorf("--codecs: %w", err)
		}
	case len(dataset) > 0:
		s.Codecs, from = dataset, "the dataset's codec blocks"
	default:
		from = "the default codecs"
	}
	m, err := hierarchy.NewArrayMeta(s)
	if err != nil {
		return nil, err
	}
	if err := hierarchy.CanonicalCodecs(ctx, m.Codecs, opts.Codecs); err != nil {
		return nil, err
	}
	if err := array.Probe(ctx, o.Path, m, opts, 0); err != nil {
		return nil, fmt.Errorf("%s: %w", from, err)
	}
	return m, nil
}

// dimensionNames parses --dimension-names: one non-empty name per
// dimension, or none at all.
func dimensionNames(flag string, rank int) ([]string, error) {
	if flag == "" {
		return nil, nil
	}
	names := strings.Split(flag, ",")
	if len(names) != rank {
		return nil, fmt.Errorf("--dimension-names %q: %d names for %d dimensions", flag, len(names), rank)
	}
	for i, n := range names {
		if names[i] = strings.TrimSpace(n); names[i] == "" {
			return nil, fmt.Errorf("--dimension-names %q: name %d is empty", flag, i+1)
		}
	}
	return names, nil
}

func parseDims(flag, s string) ([]int, error) {
	out, ok := commaInts(s, 0)
	if !ok {
		return nil, fmt.Errorf("%s %q: want comma-separated non-negative integers", flag, s)
	}
	return out, nil
}

// makeDirectory creates the directory a LOCATION names, with its parents,
// unless it is a URL other than file://.
func makeDirectory(loc string) error {
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
