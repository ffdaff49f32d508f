package meta

import (
	"errors"
	"fmt"

	"github.com/zarrgw/zarrgw/core/dtype"
)

// MarshalV3 writes the array as a v3 zarr.json the way zarr-python 3 does:
// its key order, indent 2, every codec in object form with "configuration"
// when set, fill_value always present (the type's default when FillValue is
// nil, since v3 has no null fill), attributes and storage_transformers
// always present, dimension_names when set, then the kept Extra fields.
func (a *ArrayMeta) MarshalV3() ([]byte, error) {
	b, err := a.marshalV3Compact()
	if err != nil {
		return nil, err
	}
	return indent(b, "  ")
}

func (a *ArrayMeta) marshalV3Compact() ([]byte, error) {
	if err := a.Validate(); err != nil {
		return nil, err
	}
	if len(a.Codecs) == 0 {
		return nil, errors.New("codecs: a v3 array needs at least one codec")
	}
	o := newObject()
	o.add("shape", ints(a.Shape))
	steps := []func(*object) error{a.v3Type, a.v3Grid, a.v3Key, a.v3Fill, a.v3Codecs}
	for _, step := range steps {
		if err := step(o); err != nil {
			return nil, err
		}
	}
	attrs, err := attributesOrEmpty(a.Attributes)
	if err != nil {
		return nil, err
	}
	o.add("attributes", attrs)
	o.add("zarr_format", []byte("3"))
	o.add("node_type", quote("array"))
	st, err := marshalExtensionList(a.StorageTransformers)
	if err != nil {
		return nil, fmt.Errorf("storage_transformers: %w", err)
	}
	o.add("storage_transformers", st)
	if a.DimensionNames != nil {
		names, _ := marshalNoHTML(a.DimensionNames)
		o.add("dimension_names", names)
	}
	if err := o.addExtra(a.Extra); err != nil {
		return nil, err
	}
	return o.bytes(), nil
}

func (a *ArrayMeta) v3Type(o *object) error {
	b, err := marshalV3DataType(a.DataType)
	if err != nil {
		return fmt.Errorf("data_type: %w", err)
	}
	o.add("data_type", b)
	return nil
}

func (a *ArrayMeta) v3Grid(o *object) error {
	cfg, name := newObject(), "regular"
	if a.ChunkEdges != nil {
		name = RectilinearName
		cfg.add("kind", quote("inline"))
		cfg.add("chunk_shapes", MarshalChunkShapes(a.ChunkEdges))
	} else {
		cfg.add("chunk_shape", ints(a.ChunkShape))
	}
	grid := newObject()
	grid.add("name", quote(name))
	grid.add("configuration", cfg.bytes())
	o.add("chunk_grid", grid.bytes())
	return nil
}

func (a *ArrayMeta) v3Key(o *object) error {
	b, err := marshalChunkKeyEncoding(a.ChunkKey)
	if err != nil {
		return err
	}
	o.add("chunk_key_encoding", b)
	return nil
}

func (a *ArrayMeta) v3Fill(o *object) error {
	fill := a.FillValue
	if fill == nil {
		fill = dtype.DefaultFill(a.DataType)
	}
	b, err := dtype.FormatFill(a.DataType, fill, false)
	if err != nil {
		return err
	}
	o.add("fill_value", b)
	return nil
}

func (a *ArrayMeta) v3Codecs(o *object) error {
	b, err := marshalExtensionList(a.Codecs)
	if err != nil {
		return fmt.Errorf("codecs: %w", err)
	}
	o.add("codecs", b)
	return nil
}

// MarshalV3 writes the group as a v3 zarr.json (indent 2): attributes,
// zarr_format, consolidated_metadata when Consolidated is set, node_type,
// then the kept Extra fields.
func (g *GroupMeta) MarshalV3() ([]byte, error) {
	b, err := g.marshalV3Compact()
	if err != nil {
		return nil, err
	}
	return indent(b, "  ")
}

func (g *GroupMeta) marshalV3Compact() ([]byte, error) {
	o := newObject()
	attrs, err := attributesOrEmpty(g.Attributes)
	if err != nil {
		return nil, err
	}
	o.add("attributes", attrs)
	o.add("zarr_format", []byte("3"))
	if g.Consolidated != nil {
		c, err := marshalInlineConsolidated(g.Consolidated)
		if err != nil {
			return nil, fmt.Errorf("consolidated_metadata: %w", err)
		}
		o.add("consolidated_metadata", c)
	}
	o.add("node_type", quote("group"))
	if err := o.addExtra(g.Extra); err != nil {
		return nil, err
	}
	return o.bytes(), nil
}
