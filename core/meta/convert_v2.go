package meta

import (
	"errors"
	"fmt"
	"strings"

	"github.com/zarrgw/zarrgw/core/dtype"
)

// ErrNoV2Form is wrapped by the errors of ToV2 for metadata Zarr v2 cannot
// hold: errors.Is(err, ErrNoV2Form) tells "this array cannot be written as
// v2" from other failures.
var ErrNoV2Form = errors.New("no Zarr v2 form")

// ToV2 returns an array's metadata as Zarr v2 (a .zarray and its
// .zattrs): the inverse of ToV3 where v2 can express the array. The
// result is what ParseV2Array reads back from the documents MarshalV2
// writes of it, so it holds exactly what a v2 reader will see:
//
//   - shape, chunk shape and fill value as they are (written as
//     zarr-python 2 writes fill values: "NaN", base64 for S and V, ...);
//   - the data type as a numpy type string: the byte order from the
//     "bytes" codec's endian ("|" for types without one), numpy's S, U
//     and V for null_terminated_bytes, fixed_length_utf32 and raw_bytes,
//     |O for string and bytes (their vlen-utf8 / vlen-bytes codec becomes
//     the object filter);
//   - order "C", or "F" for a first transpose codec that reverses the
//     dimensions (an identity transpose is C; any other permutation is
//     refused);
//   - the array->array codecs before "bytes" as filters, and of the
//     bytes->bytes codecs after it the last as the compressor and the
//     others as filters, each under its numcodecs id: "numcodecs.zlib" is
//     "zlib", v3 blosc's shuffle name its number (and typesize goes:
//     numcodecs takes it from the dtype), zstd's "checksum": false goes
//     (see V2FromCodecs for the exact inverse of what ParseV2Array
//     derives);
//   - dimension_separator: the separator of the chunk key encoding, "v2"
//     (keys as they are) or "default" (c/1/2 becomes 1/2, c.1.2 becomes
//     1.2);
//   - dimension_names as xarray's _ARRAY_DIMENSIONS attribute, first
//     among the attributes (see XarrayDimensionsKey); DimensionNames of
//     the result is nil, as ParseV2Array leaves it.
//
// Dropped, since v2 has nowhere to put them and nothing is lost in what
// the chunks decode to: inline consolidated metadata (of groups; see
// GroupMeta.ToV2) and Extra fields (objects with "must_understand":
// false, which readers may ignore). Refused, with an error wrapping
// ErrNoV2Form that names what and why: storage transformers, sharding
// (sharding_indexed), a codec with no numcodecs id (a name neither
// numcodecs' own nor "numcodecs.<id>"), codecs in an order v2's
// filters-then-compressor cannot say, a transpose other than C or F,
// data types numpy lacks (the core r<N>: numpy's void would read back as
// another type, raw_bytes), dimension_names that disagree with an
// _ARRAY_DIMENSIONS attribute. Chunk grids other than "regular"
// (rectilinear) never reach ToV2: ParseV3 refuses them. The errors do not
// name the array, which ArrayMeta does not know: callers wrap them with
// its path. A v2 array is returned as it is (copied).
//
// To write an array converted this way the caller:
//
//  1. writes the metadata: MarshalV2 of the result, zarray at
//     <path>/.zarray and zattrs at <path>/.zattrs (always: it holds
//     _ARRAY_DIMENSIONS), or hierarchy.CreateArray / array.Create with
//     the result, which write both;
//  2. moves every chunk to its v2 key: for a "default" encoding the key
//     loses its "c" segment (c/0/1 -> 0/1; a 0-d array's "c" -> "0");
//     a "v2" encoding keeps its keys. The chunk bytes stay as they are
//     (the codec chain is the same), so a copy through the engine
//     (array.CopyFrom, as cp does) and a rename of keys are both right;
//  3. writes each group with GroupMeta.ToV2 and its MarshalV2 (.zgroup,
//     .zattrs), ancestors included, and .zmetadata if the copy is to be
//     consolidated (hierarchy.Consolidate); no zarr.json stays behind.
func (a *ArrayMeta) ToV2() (*ArrayMeta, error) {
	if a.Format == V2 {
		return a.copyV2(), nil
	}
	if err := a.Validate(); err != nil {
		return nil, err
	}
	if err := checkV2Form(a); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNoV2Form, err)
	}
	m := *a
	m.Format = V2
	m.V2 = nil
	m.Extra = nil
	m.ChunkKey = ChunkKeyEncoding{Name: "v2", Separator: a.ChunkKey.Separator}
	if m.ChunkKey.Separator == "" {
		m.ChunkKey.Separator = "/"
	}
	zarray, zattrs, err := m.MarshalV2()
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNoV2Form, err)
	}
	out, err := ParseV2Array(zarray, zattrs)
	if err != nil {
		return nil, fmt.Errorf("internal error: the v2 metadata written does not parse back: %w\n%s", err, zarray)
	}
	return out, nil
}

// ToV2 returns a group's metadata as Zarr v2 (.zgroup, .zattrs),
// attributes kept; consolidated metadata (it describes the old documents)
// and Extra fields are dropped, as in ToV3.
func (g *GroupMeta) ToV2() *GroupMeta {
	out := &GroupMeta{Format: V2, Attributes: g.Attributes}
	if len(out.Attributes) == 0 {
		out.Attributes = []byte(`{}`)
	}
	return out
}

// copyV2 copies a v2 array's metadata, its slices and v2 fields too.
func (a *ArrayMeta) copyV2() *ArrayMeta {
	m := *a
	m.Shape = append([]int(nil), a.Shape...)
	m.ChunkShape = append([]int(nil), a.ChunkShape...)
	m.Codecs = append([]Extension(nil), a.Codecs...)
	if a.V2 != nil {
		v := *a.V2
		v.Filters = append([]Extension(nil), a.V2.Filters...)
		m.V2 = &v
	}
	return &m
}

// checkV2Form refuses what Zarr v2 has no place for, before the codec
// chain is mapped (which refuses chains in another order).
func checkV2Form(a *ArrayMeta) error {
	if a.Rectilinear() {
		return fmt.Errorf("chunk grid %s: Zarr v2 has only regular chunks (re-chunk it with a regular chunk shape)", RectilinearName)
	}
	if len(a.StorageTransformers) > 0 {
		names := make([]string, len(a.StorageTransformers))
		for i, t := range a.StorageTransformers {
			names[i] = t.Name
		}
		return fmt.Errorf("storage transformers (%s): Zarr v2 has none", strings.Join(names, ", "))
	}
	if err := checkV2Type(a.DataType); err != nil {
		return err
	}
	for _, c := range a.Codecs {
		if err := checkV2Codec(c); err != nil {
			return err
		}
	}
	return nil
}

func checkV2Type(dt dtype.DataType) error {
	switch dt.Kind {
	case dtype.Bool, dtype.Int, dtype.Uint, dtype.Float, dtype.Complex, dtype.String, dtype.Bytes,
		dtype.FixedBytes, dtype.FixedUnicode, dtype.Datetime, dtype.Timedelta:
		return nil
	case dtype.Raw:
		if dt.NumpyVoid() {
			return nil
		}
		return fmt.Errorf("data type %s: Zarr v2 (numpy) has no raw bits type; numpy's void |V%d holds the same bytes but is another type (raw_bytes in v3)", dt.Name, dt.Size)
	case dtype.Struct:
		for _, f := range dt.Fields() {
			if err := checkV2Type(f.Type); err != nil {
				return fmt.Errorf("struct field %q: %w", f.Name, err)
			}
		}
		return nil
	case dtype.SubByteInt, dtype.SubByteUint, dtype.MiniFloat, dtype.MiniComplex:
		// numpy knows these only through ml_dtypes, as void ('<V2' for
		// bfloat16); zarr-python 3.1.6 refuses them in both formats.
		return fmt.Errorf("data type %s has no Zarr v2 form (numpy has no type string for it; ml_dtypes' types are void to numpy): write it as Zarr v3", dt.Name)
	}
	return fmt.Errorf("data type %s (%s) has no numpy type string", dt.Name, dt.Kind)
}

// checkV2Codec refuses codecs that have no numcodecs id: sharding, and
// names neither numcodecs' own nor "numcodecs.<id>" (zarr-python 3's name
// of any numcodecs codec). "bytes" and "transpose" become the dtype's
// byte order and the order, where they stand (V2FromCodecs checks that).
func checkV2Codec(c Extension) error {
	name := c.Name
	switch {
	case name == "sharding_indexed":
		return fmt.Errorf("codec %s: Zarr v2 has no sharding (each chunk is a key of its own)", name)
	case name == "bytes" || name == "endian" || name == "transpose":
		return nil
	case strings.HasPrefix(name, "numcodecs.") && len(name) > len("numcodecs."):
		return nil
	}
	if _, ok := v2ArrayFilters[name]; ok || v2ObjectCodecs[name] || v2Compressors[name] {
		return nil
	}
	return fmt.Errorf("codec %q has no Zarr v2 (numcodecs) id", name)
}
