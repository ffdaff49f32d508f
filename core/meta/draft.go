package meta

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/zarrgw/zarrgw/core/dtype"
)

// DraftEntry is the entry point (root zarr.json) of a hierarchy in the
// 2019-2022 draft v3 layout.
type DraftEntry struct {
	ZarrFormat       string // the protocol URI as written
	MetadataEncoding string
	// MetadataKeySuffix ends node document keys (meta/root/a.array<suffix>);
	// ".json" when absent.
	MetadataKeySuffix string
	// Extensions are the declared extensions; all have must_understand
	// false (one that must be understood is an error, none is known).
	Extensions []Extension
}

// draftCoreURIs are the draft protocol URIs: zarr-python 2.11-2.18 wrote the
// first, the May 2022 spec text the second (http forms in older texts).
var draftCoreURIs = map[string]bool{
	"https://purl.org/zarr/spec/protocol/core/3.0": true,
	"https://purl.org/zarr/spec/core/3.0":          true,
	"http://purl.org/zarr/spec/protocol/core/3.0":  true,
	"http://purl.org/zarr/spec/core/3.0":           true,
}

// ParseDraftEntry parses a draft v3 entry point document.
func ParseDraftEntry(doc []byte) (*DraftEntry, error) {
	e, err := parseDraftEntry(doc)
	if err != nil {
		return nil, fmt.Errorf("zarr.json (draft v3 entry point): %w", err)
	}
	return e, nil
}

func parseDraftEntry(doc []byte) (*DraftEntry, error) {
	f, err := decodeObject(lenient(doc))
	if err != nil {
		return nil, err
	}
	e := &DraftEntry{MetadataKeySuffix: ".json", MetadataEncoding: "application/json"}
	raw, err := required(f, "zarr_format")
	if err != nil {
		return nil, err
	}
	if e.ZarrFormat, err = parseString(raw); err != nil || !draftCoreURIs[e.ZarrFormat] {
		return nil, fmt.Errorf("zarr_format: unsupported protocol %s", abbreviate(raw))
	}
	if raw, ok := f.takeNonNull("metadata_encoding"); ok {
		s, err := parseString(raw)
		if err != nil || (s != "application/json" && !draftCoreURIs[s]) {
			return nil, fmt.Errorf("metadata_encoding: unsupported encoding %s", abbreviate(raw))
		}
		e.MetadataEncoding = s
	}
	if raw, ok := f.takeNonNull("metadata_key_suffix"); ok {
		if e.MetadataKeySuffix, err = parseString(raw); err != nil {
			return nil, fmt.Errorf("metadata_key_suffix: %w", err)
		}
	}
	if e.Extensions, err = draftExtensions(f); err != nil {
		return nil, err
	}
	if _, err := f.extras(); err != nil {
		return nil, err
	}
	return e, nil
}

// draftExtensions reads "extensions": [{"extension": uri,
// "must_understand": bool, "configuration": {...}}]. No draft extension is
// implemented, so one that must be understood (the default) is an error.
func draftExtensions(f fields) ([]Extension, error) {
	raw, ok := f.takeNonNull("extensions")
	if !ok {
		return nil, nil
	}
	elems, err := parseArray(raw)
	if err != nil {
		return nil, fmt.Errorf("extensions: %w", err)
	}
	var out []Extension
	for i, el := range elems {
		ef, err := decodeObject(el)
		if err != nil {
			return nil, fmt.Errorf("extensions: entry %d: %w", i, err)
		}
		ext, err := extensionFromFields(ef, "extension")
		if err != nil {
			return nil, fmt.Errorf("extensions: entry %d: %w", i, err)
		}
		if ext.MustUnderstand {
			return nil, fmt.Errorf("extensions: %q must be understood and is not supported", ext.Name)
		}
		out = append(out, ext)
	}
	return out, nil
}

// ParseDraftArray parses a draft v3 array document (meta/root/...
// .array.json). The result has Format V3Draft, the numpy-style data type,
// ChunkKey {"draft", separator}, and the codec chain [transpose] (memory
// layout F), "bytes" with the data type's byte order, [the compressor,
// named by the codec segment of its URI]. A null fill_value stays nil.
func ParseDraftArray(doc []byte) (*ArrayMeta, error) {
	a, err := parseDraftArray(doc)
	if err != nil {
		return nil, fmt.Errorf("draft v3 array metadata: %w", err)
	}
	return a, nil
}

func parseDraftArray(doc []byte) (*ArrayMeta, error) {
	f, err := decodeObject(lenient(doc))
	if err != nil {
		return nil, err
	}
	a := &ArrayMeta{Format: V3Draft}
	if err := v3Shape(f, a); err != nil {
		return nil, err
	}
	end, err := draftDataType(f, a)
	if err != nil {
		return nil, err
	}
	steps := []func(fields, *ArrayMeta) error{draftGrid, draftFill, v3Attributes, draftTransformers, v3DimensionNames}
	for _, step := range steps {
		if err := step(f, a); err != nil {
			return nil, err
		}
	}
	if a.Codecs, err = draftCodecs(f, a, end); err != nil {
		return nil, err
	}
	if _, err := draftExtensions(f); err != nil {
		return nil, err
	}
	a.Extra, err = f.extras()
	return a, err
}

// draftDataType reads a numpy-style data_type ("<f4", "bool", "r16"), or
// the extension form {"extension": uri, "type": "<M8[ns]", "fallback": ...}.
func draftDataType(f fields, a *ArrayMeta) (dtype.Endian, error) {
	raw, err := required(f, "data_type")
	if err != nil {
		return 0, err
	}
	typ := raw
	if t := bytes.TrimSpace(raw); len(t) > 0 && t[0] == '{' {
		obj, err := decodeObject(t)
		if err != nil {
			return 0, fmt.Errorf("data_type: %w", err)
		}
		typ = obj["type"]
	}
	s, err := parseString(typ)
	if err != nil {
		return 0, fmt.Errorf("data_type: %w", err)
	}
	dt, end, err := dtype.ParseV2(s)
	if err != nil {
		if dt, err = dtype.ParseV3(s); err != nil {
			return 0, fmt.Errorf("data_type: unknown data type %q", s)
		}
	}
	a.DataType = dt
	return end, nil
}

func draftGrid(f fields, a *ArrayMeta) error {
	raw, err := required(f, "chunk_grid")
	if err != nil {
		return err
	}
	g, err := decodeObject(raw)
	if err != nil {
		return fmt.Errorf("chunk_grid: %w", err)
	}
	typ, _ := g.take("type")
	if s, err := parseString(typ); err != nil || s != "regular" {
		return fmt.Errorf("chunk_grid: unsupported chunk grid type %s (only \"regular\")", abbreviate(typ))
	}
	shapeRaw, _ := g.take("chunk_shape")
	if a.ChunkShape, err = parseInts(shapeRaw, 1); err != nil {
		return fmt.Errorf("chunk_grid: chunk_shape: %w", err)
	}
	if len(a.ChunkShape) != len(a.Shape) {
		return fmt.Errorf("chunk_grid: chunk_shape has %d dimensions, shape has %d", len(a.ChunkShape), len(a.Shape))
	}
	sep := "/"
	if raw, ok := g.takeNonNull("separator"); ok {
		if sep, err = parseString(raw); err != nil || (sep != "/" && sep != ".") {
			return fmt.Errorf("chunk_grid: separator: expected \"/\" or \".\", got %s", abbreviate(raw))
		}
	}
	if len(g) > 0 {
		return fmt.Errorf("chunk_grid: unknown field %q", g.sortedKeys()[0])
	}
	a.ChunkKey = ChunkKeyEncoding{Name: "draft", Separator: sep}
	return nil
}

func draftFill(f fields, a *ArrayMeta) error {
	raw, ok := f.take("fill_value")
	if !ok {
		return nil
	}
	var err error
	a.FillValue, err = dtype.ParseFill(a.DataType, raw, true)
	return err
}

// draftCodecs derives the v3 chain from chunk_memory_layout and compressor.
func draftCodecs(f fields, a *ArrayMeta, end dtype.Endian) ([]Extension, error) {
	var chain []Extension
	layout := "C"
	if raw, ok := f.takeNonNull("chunk_memory_layout"); ok {
		s, err := parseString(raw)
		if err != nil || (s != "C" && s != "F") {
			return nil, fmt.Errorf("chunk_memory_layout: expected \"C\" or \"F\", got %s", abbreviate(raw))
		}
		layout = s
	}
	if layout == "F" && len(a.Shape) > 1 {
		chain = append(chain, transposeReversed(len(a.Shape)))
	}
	if a.DataType.Variable() {
		return nil, errors.New("data_type: variable-length types are not supported in the draft layout")
	}
	chain = append(chain, bytesCodec(a.DataType, end))
	raw, ok := f.takeNonNull("compressor")
	if !ok {
		return chain, nil
	}
	c, err := draftCompressor(raw)
	if err != nil {
		return nil, fmt.Errorf("compressor: %w", err)
	}
	return append(chain, c), nil
}

// draftCompressor reads {"codec": uri, "configuration": {...}}; the codec
// is named by the URI segment after "/codec/"
// (https://purl.org/zarr/spec/codec/blosc/1.0 -> "blosc").
func draftCompressor(raw json.RawMessage) (Extension, error) {
	f, err := decodeObject(raw)
	if err != nil {
		return Extension{}, err
	}
	ext, err := extensionFromFields(f, "codec")
	if err != nil {
		return Extension{}, err
	}
	i := strings.Index(ext.Name, "/codec/")
	if i < 0 {
		return Extension{}, fmt.Errorf("unrecognised codec URI %q", ext.Name)
	}
	name, _, _ := strings.Cut(ext.Name[i+len("/codec/"):], "/")
	if name == "" {
		return Extension{}, fmt.Errorf("unrecognised codec URI %q", ext.Name)
	}
	ext.Name = name
	return ext, nil
}

// draftTransformers reads storage transformers in the draft form
// {"extension": uri, "type": ..., "configuration": {...}}: the name is the
// URI, the configuration is kept; "type" is checked to be a string.
func draftTransformers(f fields, a *ArrayMeta) error {
	raw, ok := f.takeNonNull("storage_transformers")
	if !ok {
		return nil
	}
	elems, err := parseArray(raw)
	if err != nil {
		return fmt.Errorf("storage_transformers: %w", err)
	}
	for i, el := range elems {
		ef, err := decodeObject(el)
		if err != nil {
			return fmt.Errorf("storage_transformers: entry %d: %w", i, err)
		}
		if typ, ok := ef.take("type"); ok {
			if _, err := parseString(typ); err != nil {
				return fmt.Errorf("storage_transformers: entry %d: type: %w", i, err)
			}
		}
		ext, err := extensionFromFields(ef, "extension")
		if err != nil {
			return fmt.Errorf("storage_transformers: entry %d: %w", i, err)
		}
		a.StorageTransformers = append(a.StorageTransformers, ext)
	}
	return nil
}

// ParseDraftGroup parses a draft v3 group document ({"attributes": ...,
// "extensions": [...]}).
func ParseDraftGroup(doc []byte) (*GroupMeta, error) {
	g, err := parseDraftGroup(doc)
	if err != nil {
		return nil, fmt.Errorf("draft v3 group metadata: %w", err)
	}
	return g, nil
}

func parseDraftGroup(doc []byte) (*GroupMeta, error) {
	f, err := decodeObject(lenient(doc))
	if err != nil {
		return nil, err
	}
	g := &GroupMeta{Format: V3Draft}
	raw, ok := f.take("attributes")
	if g.Attributes, err = parseAttributes(raw, ok); err != nil {
		return nil, err
	}
	if _, err := draftExtensions(f); err != nil {
		return nil, err
	}
	if g.Extra, err = f.extras(); err != nil {
		return nil, err
	}
	return g, nil
}
