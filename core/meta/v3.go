package meta

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/zarrgw/zarrgw/core/dtype"
)

// ErrDraftEntry is returned (wrapped) by ParseV3 when the zarr.json is the
// entry point of a draft v3 hierarchy (its zarr_format is a URI string):
// the caller should read it with ParseDraftEntry instead.
var ErrDraftEntry = errors.New("zarr.json is a draft v3 entry point")

// ParseV3 parses a v3 zarr.json document. Exactly one of the results is
// non-nil on success. Keys are matched exactly; an unknown top-level field
// is an error unless its value is an object with "must_understand": false,
// in which case it is kept in Extra. Python's bare NaN/Infinity tokens are
// accepted anywhere and read as the strings "NaN", "Infinity", "-Infinity".
func ParseV3(doc []byte) (*ArrayMeta, *GroupMeta, error) {
	a, g, err := parseV3(doc)
	if err != nil {
		return nil, nil, fmt.Errorf("zarr.json: %w", err)
	}
	return a, g, nil
}

func parseV3(doc []byte) (*ArrayMeta, *GroupMeta, error) {
	f, err := decodeObject(lenient(doc))
	if err != nil {
		return nil, nil, err
	}
	if err := checkZarrFormat3(f); err != nil {
		return nil, nil, err
	}
	rawType, ok := f.take("node_type")
	if !ok {
		return nil, nil, errors.New("missing node_type")
	}
	nodeType, err := parseString(rawType)
	if err != nil {
		return nil, nil, fmt.Errorf("node_type: %w", err)
	}
	switch nodeType {
	case "array":
		a, err := parseV3Array(f)
		return a, nil, err
	case "group":
		g, err := parseV3Group(f)
		return nil, g, err
	}
	return nil, nil, fmt.Errorf("node_type: unknown node type %q", nodeType)
}

func checkZarrFormat3(f fields) error {
	raw, ok := f.take("zarr_format")
	if !ok {
		return errors.New("missing zarr_format")
	}
	if t := bytes.TrimSpace(raw); len(t) > 0 && t[0] == '"' {
		return fmt.Errorf("zarr_format %s: %w", abbreviate(t), ErrDraftEntry)
	}
	if n, err := parseInt(raw); err != nil || n != 3 {
		return fmt.Errorf("zarr_format: unsupported value %s (want 3)", abbreviate(raw))
	}
	return nil
}

// required takes a field that must be present (and not null).
func required(f fields, key string) (json.RawMessage, error) {
	raw, ok := f.take(key)
	if !ok {
		return nil, fmt.Errorf("missing %s", key)
	}
	if isNull(raw) {
		return nil, fmt.Errorf("%s: must not be null", key)
	}
	return raw, nil
}

func parseV3Array(f fields) (*ArrayMeta, error) {
	a := &ArrayMeta{Format: V3}
	steps := []func(fields, *ArrayMeta) error{
		v3Shape, v3DataType, v3ChunkGrid, v3ChunkKey, v3Fill, v3Codecs,
		v3Attributes, v3StorageTransformers, v3DimensionNames,
	}
	for _, step := range steps {
		if err := step(f, a); err != nil {
			return nil, err
		}
	}
	extra, err := f.extras()
	if err != nil {
		return nil, err
	}
	a.Extra = extra
	return a, nil
}

func v3Shape(f fields, a *ArrayMeta) error {
	raw, err := required(f, "shape")
	if err != nil {
		return err
	}
	if a.Shape, err = parseInts(raw, 0); err != nil {
		return fmt.Errorf("shape: %w", err)
	}
	return nil
}

func v3DataType(f fields, a *ArrayMeta) error {
	raw, err := required(f, "data_type")
	if err != nil {
		return err
	}
	if a.DataType, err = parseV3DataType(raw); err != nil {
		return fmt.Errorf("data_type: %w", err)
	}
	return nil
}

func v3ChunkGrid(f fields, a *ArrayMeta) error {
	raw, err := required(f, "chunk_grid")
	if err != nil {
		return err
	}
	if a.ChunkShape, a.ChunkEdges, err = parseChunkGrid(raw); err != nil {
		return fmt.Errorf("chunk_grid: %w", err)
	}
	if a.ChunkEdges != nil && len(a.ChunkEdges) != len(a.Shape) {
		return fmt.Errorf("chunk_grid: chunk_shapes has %d dimensions, shape has %d", len(a.ChunkEdges), len(a.Shape))
	}
	if len(a.ChunkShape) != len(a.Shape) {
		return fmt.Errorf("chunk_grid: chunk_shape has %d dimensions, shape has %d", len(a.ChunkShape), len(a.Shape))
	}
	return nil
}

// parseChunkGrid reads a regular grid's chunk shape, or a rectilinear
// grid's edges and their longest chunk.
func parseChunkGrid(raw json.RawMessage) ([]int, []Edges, error) {
	ext, err := parseExtension(raw)
	if err != nil {
		return nil, nil, err
	}
	switch ext.Name {
	case "regular":
	case RectilinearName:
		edges, err := parseRectilinear(ext)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", ext.Name, err)
		}
		return LongestChunks(edges), edges, nil
	default:
		return nil, nil, fmt.Errorf("unsupported chunk grid %q (\"regular\" or \"rectilinear\")", ext.Name)
	}
	cfg, err := configFields(ext)
	if err != nil {
		return nil, nil, err
	}
	shapeRaw, ok := cfg.take("chunk_shape")
	if !ok {
		return nil, nil, errors.New("missing chunk_shape")
	}
	if len(cfg) > 0 {
		return nil, nil, fmt.Errorf("unknown configuration key %q", cfg.sortedKeys()[0])
	}
	shape, err := parseInts(shapeRaw, 1)
	if err != nil {
		return nil, nil, fmt.Errorf("chunk_shape: %w", err)
	}
	return shape, nil, nil
}

func v3ChunkKey(f fields, a *ArrayMeta) error {
	raw, err := required(f, "chunk_key_encoding")
	if err != nil {
		return err
	}
	if a.ChunkKey, err = parseChunkKeyEncoding(raw); err != nil {
		return fmt.Errorf("chunk_key_encoding: %w", err)
	}
	return nil
}

func v3Fill(f fields, a *ArrayMeta) error {
	raw, err := required(f, "fill_value")
	if err != nil {
		return err
	}
	if a.FillValue, err = dtype.ParseFill(a.DataType, raw, false); err != nil {
		return err // names fill_value already
	}
	return nil
}

func v3Codecs(f fields, a *ArrayMeta) error {
	raw, err := required(f, "codecs")
	if err != nil {
		return err
	}
	if a.Codecs, err = parseExtensionList(raw); err != nil {
		return fmt.Errorf("codecs: %w", err)
	}
	if len(a.Codecs) == 0 {
		return errors.New("codecs: must not be empty")
	}
	return nil
}

func v3Attributes(f fields, a *ArrayMeta) error {
	raw, ok := f.take("attributes")
	var err error
	a.Attributes, err = parseAttributes(raw, ok)
	return err
}

func v3StorageTransformers(f fields, a *ArrayMeta) error {
	raw, ok := f.take("storage_transformers")
	if !ok {
		return nil
	}
	var err error
	if a.StorageTransformers, err = parseExtensionList(raw); err != nil {
		return fmt.Errorf("storage_transformers: %w", err)
	}
	return nil
}

func v3DimensionNames(f fields, a *ArrayMeta) error {
	raw, ok := f.takeNonNull("dimension_names")
	if !ok {
		return nil
	}
	names, err := parseDimensionNames(raw, len(a.Shape))
	if err != nil {
		return fmt.Errorf("dimension_names: %w", err)
	}
	a.DimensionNames = names
	return nil
}

func parseDimensionNames(raw json.RawMessage, ndim int) ([]*string, error) {
	elems, err := parseArray(raw)
	if err != nil {
		return nil, err
	}
	if len(elems) != ndim {
		return nil, fmt.Errorf("%d names for %d dimensions", len(elems), ndim)
	}
	names := make([]*string, ndim)
	for i, e := range elems {
		if isNull(e) {
			continue
		}
		s, err := parseString(e)
		if err != nil {
			return nil, fmt.Errorf("element %d: %w", i, err)
		}
		names[i] = &s
	}
	return names, nil
}
