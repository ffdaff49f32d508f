package meta

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/zarrgw/zarrgw/core/dtype"
)

// V2FromCodecs returns the v2 fields (dtype, order, filters, compressor,
// dimension separator) that express a's data type and codec chain. When
// a.V2 still derives exactly a.Codecs it is returned (copied) as is, so a
// parsed .zarray is rewritten unchanged; otherwise the fields are derived
// from the chain: transpose [n-1..0] is order F, the numcodecs
// array->array codecs and the object codec become filters, "bytes" gives
// the dtype's byte order, and of the bytes->bytes codecs the last is the
// compressor and the others are filters. Chains v2 cannot express
// (sharding, an unknown array->array codec, another transpose) are errors.
//
// DimensionSeparator follows a.ChunkKey (it stays absent when it was
// absent and is still "."); FillJSON and Extra are carried over from a.V2.
func V2FromCodecs(a *ArrayMeta) (*V2Array, error) {
	v, ok := reuseV2(a)
	if !ok {
		var err error
		if v, err = deriveV2Fields(a); err != nil {
			return nil, fmt.Errorf("codecs cannot be expressed in Zarr v2: %w", err)
		}
		if a.V2 != nil {
			v.FillJSON, v.Extra, v.DimensionSeparator = a.V2.FillJSON, a.V2.Extra, a.V2.DimensionSeparator
		}
	}
	sep := a.ChunkKey.Separator
	if sep == "" {
		sep = "."
	}
	if v.DimensionSeparator != "" || sep != "." || a.V2 == nil {
		v.DimensionSeparator = sep
	}
	return v, nil
}

func reuseV2(a *ArrayMeta) (*V2Array, bool) {
	if a.V2 == nil {
		return nil, false
	}
	dt, end, err := parseV2DType(a.V2.DType)
	if err != nil {
		return nil, false
	}
	codecs, dt, err := deriveV2Codecs(a.V2, dt, end, len(a.Shape), nil)
	if err != nil || !dt.Equal(a.DataType) || !extensionsEqual(codecs, a.Codecs) {
		return nil, false
	}
	v := *a.V2
	v.Filters = append([]Extension(nil), a.V2.Filters...)
	return &v, true
}

// deriveV2Fields inverts deriveV2Codecs.
func deriveV2Fields(a *ArrayMeta) (*V2Array, error) {
	codecs := a.Codecs
	v := &V2Array{Order: "C"}
	if len(codecs) > 0 && codecs[0].Name == "transpose" {
		order, err := transposeOrder(codecs[0], len(a.Shape))
		if err != nil {
			return nil, err
		}
		v.Order, codecs = order, codecs[1:]
	}
	// Every codec before the array->bytes codec is an array->array
	// filter, whatever its name: a plugin's as much as numcodecs' own.
	i := 0
	for ; i < len(codecs) && !v2ArrayToBytesName(codecs[i].Name); i++ {
		v.Filters = append(v.Filters, toNumcodecs(codecs[i]))
	}
	if i == len(codecs) {
		return nil, errors.New("no array->bytes codec")
	}
	end, err := v2ArrayToBytes(a, codecs[i], v)
	if err != nil {
		return nil, err
	}
	if err := v2BytesCodecs(codecs[i+1:], v); err != nil {
		return nil, err
	}
	v.DType = a.DataType.V2String(dtypeEndian(a, v, end))
	return v, nil
}

// transposeOrder maps a transpose codec onto a v2 order: the identity is
// C, the reversal F; anything else has no v2 form.
func transposeOrder(e Extension, ndim int) (string, error) {
	cfg, err := configFields(e)
	if err != nil {
		return "", err
	}
	raw := cfg["order"]
	if s, err := parseString(raw); err == nil && (s == "C" || s == "F") {
		return s, nil // legacy spelling
	}
	perm, err := parseInts(raw, 0)
	if err != nil || len(perm) != ndim {
		return "", fmt.Errorf("transpose: invalid order %s", abbreviate(raw))
	}
	identity, reversed := true, true
	for i, p := range perm {
		identity = identity && p == i
		reversed = reversed && p == ndim-1-i
	}
	switch {
	case identity:
		return "C", nil
	case reversed:
		return "F", nil
	}
	return "", fmt.Errorf("transpose order %v is neither C nor F order", perm)
}

// v2ArrayToBytesName reports whether a codec can be the array->bytes codec
// of a chain expressed in v2 (or must be refused as one: transpose after
// the filters, sharding).
func v2ArrayToBytesName(name string) bool {
	switch name = strings.TrimPrefix(name, "numcodecs."); {
	case name == "bytes" || name == "endian" || name == "transpose" || name == "sharding_indexed":
		return true
	case v2ObjectCodecs[name]:
		return true
	}
	return v2Compressors[name]
}

// v2Compressors are numcodecs' bytes->bytes ids: one of them ahead of the
// array->bytes codec is a misplaced codec, not an array->array filter.
var v2Compressors = map[string]bool{
	"zstd": true, "gzip": true, "zlib": true, "bz2": true, "lz4": true, "lzma": true, "blosc": true,
	"crc32": true, "crc32c": true, "adler32": true, "fletcher32": true, "shuffle": true,
}

// v2ArrayToBytes handles the chain's array->bytes codec: "bytes" (or the
// legacy "endian") gives the byte order; an object codec becomes a filter.
func v2ArrayToBytes(a *ArrayMeta, e Extension, v *V2Array) (dtype.Endian, error) {
	switch name := strings.TrimPrefix(e.Name, "numcodecs."); {
	case name == "bytes" || name == "endian":
		if a.DataType.Variable() && !hasOutputDType(v.Filters) {
			return 0, fmt.Errorf("data type %s needs an object codec, not %q", a.DataType.Name, e.Name)
		}
		return endianOf(e)
	case v2ObjectCodecs[name]:
		if !a.DataType.Variable() {
			return 0, fmt.Errorf("object codec %q on data type %s", e.Name, a.DataType.Name)
		}
		v.Filters = append(v.Filters, toNumcodecs(e))
		return dtype.NoEndian, nil
	case name == "transpose":
		return 0, errors.New("transpose must be the first codec")
	case v2Kind(name) == arrayToArray:
		return 0, fmt.Errorf("%q after the array->bytes codec", e.Name)
	}
	return 0, fmt.Errorf("codec %q where the array->bytes codec belongs", e.Name)
}

func hasOutputDType(filters []Extension) bool {
	return len(filters) > 0 && outputDType(filters[len(filters)-1]) != ""
}

// v2BytesCodecs places the bytes->bytes codecs: the last is the
// compressor, the others filters.
func v2BytesCodecs(list []Extension, v *V2Array) error {
	for i, e := range list {
		name := strings.TrimPrefix(e.Name, "numcodecs.")
		if v2Kind(name) != bytesToBytes || name == "bytes" || name == "transpose" || name == "sharding_indexed" {
			return fmt.Errorf("%q after the array->bytes codec", e.Name)
		}
		c := toNumcodecs(e)
		if i == len(list)-1 {
			v.Compressor = &c
		} else {
			v.Filters = append(v.Filters, c)
		}
	}
	return nil
}

// dtypeEndian picks the byte order written in dtype: the bytes codec's,
// unless the last filter converts to another dtype (astype), in which case
// the bytes codec speaks of that dtype. The array's own order is then the
// one the first filter reads (its "dtype": numcodecs views the chunk bytes
// as that type), else the kept v2 dtype's, else little endian.
func dtypeEndian(a *ArrayMeta, v *V2Array, bytesEnd dtype.Endian) dtype.Endian {
	if !hasOutputDType(v.Filters) {
		return bytesEnd
	}
	if in := inputDType(v.Filters[0]); in != "" {
		if dt, end, err := dtype.ParseV2(in); err == nil && dt.Equal(a.DataType) {
			return end
		}
	}
	if a.V2 != nil {
		if dt, end, err := parseV2DType(a.V2.DType); err == nil && dt.Equal(a.DataType) {
			return end
		}
	}
	return dtype.Little
}

// toNumcodecs turns a v3 codec into a numcodecs one: "numcodecs." is
// dropped, v3 blosc's string shuffle and typesize become numcodecs'
// integer shuffle (typesize comes from the dtype in v2), and zstd loses a
// false checksum.
func toNumcodecs(e Extension) Extension {
	out := Extension{Name: strings.TrimPrefix(e.Name, "numcodecs."), Configuration: e.Configuration, MustUnderstand: true}
	if out.Configuration == nil {
		out.Configuration = json.RawMessage("{}")
	}
	switch out.Name {
	case "blosc":
		out.Configuration = bloscToNumcodecs(out.Configuration)
	case "zstd":
		out.Configuration = zstdToNumcodecs(out.Configuration)
	}
	return out
}

// zstdToNumcodecs drops "checksum": false, which numcodecs before 0.13
// rejects (and zarr-python 3 drops too); true is kept, it changes the data.
func zstdToNumcodecs(cfg json.RawMessage) json.RawMessage {
	f, err := decodeObject(cfg)
	if err != nil || string(bytes.TrimSpace(f["checksum"])) != "false" {
		return cfg
	}
	delete(f, "checksum")
	b, err := marshalNoHTML(map[string]json.RawMessage(f))
	if err != nil {
		return cfg
	}
	return compact(b)
}

func bloscToNumcodecs(cfg json.RawMessage) json.RawMessage {
	f, err := decodeObject(cfg)
	if err != nil {
		return cfg
	}
	shuffles := map[string]string{`"noshuffle"`: "0", `"shuffle"`: "1", `"bitshuffle"`: "2"}
	if n, ok := shuffles[string(bytes.TrimSpace(f["shuffle"]))]; ok {
		f["shuffle"] = json.RawMessage(n)
		delete(f, "typesize")
	}
	b, err := marshalNoHTML(map[string]json.RawMessage(f))
	if err != nil {
		return cfg
	}
	return compact(b)
}

// extensionsEqual compares codec chains by name and configuration meaning
// (key order and spacing aside).
func extensionsEqual(x, y []Extension) bool {
	if len(x) != len(y) {
		return false
	}
	for i := range x {
		if x[i].Name != y[i].Name || !jsonEqual(orEmpty(x[i].Configuration), orEmpty(y[i].Configuration)) {
			return false
		}
	}
	return true
}

// orEmpty treats an absent configuration as the empty one it means.
func orEmpty(cfg json.RawMessage) json.RawMessage {
	if cfg == nil {
		return json.RawMessage("{}")
	}
	return cfg
}

// jsonEqual compares two JSON values by meaning; nil equals nil only.
func jsonEqual(x, y json.RawMessage) bool {
	if x == nil || y == nil {
		return x == nil && y == nil
	}
	var vx, vy any
	if decodeNumbers(x, &vx) != nil || decodeNumbers(y, &vy) != nil {
		return bytes.Equal(x, y)
	}
	return deepEqualJSON(vx, vy)
}
