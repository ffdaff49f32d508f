package meta

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/zarrgw/zarrgw/core/dtype"
	"github.com/zarrgw/zarrgw/core/extension"
)

const (
	arrayToArray = extension.ArrayToArray
	arrayToBytes = extension.ArrayToBytes
	bytesToBytes = extension.BytesToBytes
)

// KindOf tells where a v2 filter belongs in the equivalent v3 chain: the
// kind of the codec its id names, as a codec registry (bundled or plugin)
// knows it. ok false leaves the filter to numcodecs' own ids, which meta
// knows so that metadata parses without a registry.
type KindOf func(filter Extension) (kind extension.CodecKind, ok bool)

// numcodecs ids that work on arrays (array->array in v3), and the
// configuration key holding their output dtype, if any.
var v2ArrayFilters = map[string]string{
	"delta":            "astype",
	"fixedscaleoffset": "astype",
	"quantize":         "astype",
	"categorize":       "astype",
	"astype":           "encode_dtype",
	"bitround":         "",
	"packbits":         "",
}

// numcodecs object codecs: they turn an object array into bytes.
var v2ObjectCodecs = map[string]bool{
	"vlen-utf8": true, "vlen-bytes": true, "vlen-array": true,
	"json2": true, "msgpack2": true, "pickle": true,
	"json": true, "msgpack": true, // ids of old numcodecs versions
}

func v2Kind(id string) extension.CodecKind {
	id = strings.TrimPrefix(id, "numcodecs.")
	if _, ok := v2ArrayFilters[id]; ok {
		return arrayToArray
	}
	if v2ObjectCodecs[id] {
		return arrayToBytes
	}
	return bytesToBytes // the default for ids numcodecs does not define
}

// kind is f's kind by kindOf, else by numcodecs' ids.
func (kindOf KindOf) kind(f Extension) extension.CodecKind {
	if kindOf != nil {
		if k, ok := kindOf(f); ok {
			return k
		}
	}
	return v2Kind(f.Name)
}

// parseV2Codec reads a numcodecs codec object {"id": ..., ...}: the id
// becomes the name, the rest (sorted, compacted) the configuration.
func parseV2Codec(raw json.RawMessage) (Extension, error) {
	f, err := decodeObject(raw)
	if err != nil {
		return Extension{}, err
	}
	idRaw, ok := f.take("id")
	if !ok {
		return Extension{}, fmt.Errorf("missing \"id\" in %s", abbreviate(raw))
	}
	id, err := parseString(idRaw)
	if err != nil || id == "" {
		return Extension{}, fmt.Errorf("id: expected a non-empty string, got %s", abbreviate(idRaw))
	}
	cfg, err := marshalNoHTML(map[string]json.RawMessage(f))
	if err != nil {
		return Extension{}, fmt.Errorf("%s: %w", id, err)
	}
	return Extension{Name: id, Configuration: compact(cfg), MustUnderstand: true}, nil
}

// deriveV2Codecs builds the v3 codec chain equivalent to a .zarray's order,
// filters and compressor: [transpose] (order F, ndim > 1), the array->array
// filters, the array->bytes codec (an object codec filter, or "bytes" with
// the byte order in effect), the bytes->bytes filters, the compressor. It
// also returns the data type refined by the object codec (|O with
// vlen-bytes holds bytes, not strings).
func deriveV2Codecs(v *V2Array, dt dtype.DataType, end dtype.Endian, ndim int, kindOf KindOf) ([]Extension, dtype.DataType, error) {
	aa, ab, bb, err := splitV2Filters(v3Names(v.Filters), kindOf)
	if err != nil {
		return nil, dt, err
	}
	var chain []Extension
	if v.Order == "F" && ndim > 1 {
		chain = append(chain, transposeReversed(ndim))
	}
	chain = append(chain, aa...)
	switch {
	case ab != nil:
		if !dt.Variable() {
			return nil, dt, fmt.Errorf("filters: object codec %q on dtype %q (only |O arrays hold objects)", ab.Name, v.DType)
		}
		if strings.TrimPrefix(ab.Name, "numcodecs.") == "vlen-bytes" {
			dt = dtype.DataType{Kind: dtype.Bytes, Name: dt.Name}
		}
		chain = append(chain, *ab)
	default:
		bc, err := bytesCodecAfter(aa, dt, end, v.DType)
		if err != nil {
			return nil, dt, err
		}
		chain = append(chain, bc)
	}
	chain = append(chain, bb...)
	if v.Compressor != nil {
		chain = append(chain, *v.Compressor)
	}
	return chain, dt, nil
}

// v2IDsTakenInV3 are numcodecs ids that name another codec in v3: the
// registry's packbits (array->bytes, any bit width) is not numcodecs'
// packbits (a bool filter), which zarr-python 3 calls numcodecs.packbits.
var v2IDsTakenInV3 = map[string]bool{"packbits": true}

// v3Names returns filters with the ids of v2IDsTakenInV3 under their
// numcodecs.* names, so that a v2 filter never resolves to the v3 codec.
func v3Names(filters []Extension) []Extension {
	var out []Extension
	for i, f := range filters {
		if v2IDsTakenInV3[f.Name] {
			if out == nil {
				out = append([]Extension(nil), filters...)
			}
			out[i].Name = "numcodecs." + f.Name
		}
	}
	if out == nil {
		return filters
	}
	return out
}

// splitV2Filters sorts the filters into array->array, the object codec and
// bytes->bytes, failing when their order has no v3 equivalent.
func splitV2Filters(filters []Extension, kindOf KindOf) (aa []Extension, ab *Extension, bb []Extension, err error) {
	for i, f := range filters {
		switch kindOf.kind(f) {
		case arrayToArray:
			if ab != nil || len(bb) > 0 {
				return nil, nil, nil, fmt.Errorf("filters: %q (array->array) after a bytes filter cannot be expressed as a codec chain", f.Name)
			}
			aa = append(aa, f)
		case arrayToBytes:
			if ab != nil || len(bb) > 0 {
				return nil, nil, nil, fmt.Errorf("filters: object codec %q must come before the bytes filters", f.Name)
			}
			ab = &filters[i]
		default:
			bb = append(bb, f)
		}
	}
	return aa, ab, bb, nil
}

// WithV2Kinds returns a v2 array's metadata with its codec chain derived
// again, each filter placed where kindOf says: a plugin's array->array
// filter (unknown to numcodecs, so parsed as bytes->bytes) goes before the
// bytes codec. Metadata that kindOf does not change is returned as is.
func (a *ArrayMeta) WithV2Kinds(kindOf KindOf) (*ArrayMeta, error) {
	if a.Format != V2 || a.V2 == nil {
		return a, nil
	}
	dt, end, err := parseV2DType(a.V2.DType)
	if err != nil {
		return nil, err
	}
	codecs, dt, err := deriveV2Codecs(a.V2, dt, end, len(a.Shape), kindOf)
	if err != nil {
		return nil, err
	}
	if extensionsEqual(codecs, a.Codecs) && dt.Equal(a.DataType) {
		return a, nil
	}
	b := *a
	b.Codecs = codecs
	if !dt.Equal(a.DataType) {
		b.DataType = dt
		if b.FillValue, err = dtype.ParseFill(dt, a.V2.FillJSON, true); err != nil {
			return nil, err
		}
	}
	return &b, nil
}

// bytesCodecAfter is the "bytes" codec serialising the output of the last
// array->array filter: its byte order is that filter's output dtype
// (astype) if it names one, else the array dtype's.
func bytesCodecAfter(aa []Extension, dt dtype.DataType, end dtype.Endian, dtypeStr string) (Extension, error) {
	if dt.Variable() {
		if len(aa) == 0 || outputDType(aa[len(aa)-1]) == "" {
			return Extension{}, fmt.Errorf("dtype %q: an object array needs an object codec (vlen-utf8, vlen-bytes, json2, ...) in filters", dtypeStr)
		}
	}
	if len(aa) > 0 {
		if out := outputDType(aa[len(aa)-1]); out != "" {
			odt, oend, err := dtype.ParseV2(out)
			if err != nil {
				return Extension{}, fmt.Errorf("filters: %s: %w", aa[len(aa)-1].Name, err)
			}
			return bytesCodec(odt, oend), nil
		}
	}
	return bytesCodec(dt, end), nil
}

// inputDType returns the numpy dtype string an array->array filter reads,
// or "" when its configuration does not say.
func inputDType(f Extension) string {
	name := strings.TrimPrefix(f.Name, "numcodecs.")
	if _, ok := v2ArrayFilters[name]; !ok {
		return ""
	}
	key := "dtype"
	if name == "astype" {
		key = "decode_dtype"
	}
	return configString(f, key)
}

// outputDType returns the numpy dtype string an array->array filter
// produces, or "" when it keeps the input dtype.
func outputDType(f Extension) string {
	key := v2ArrayFilters[strings.TrimPrefix(f.Name, "numcodecs.")]
	if key == "" {
		return ""
	}
	return configString(f, key)
}

// configString returns a string configuration value, "" when absent.
func configString(f Extension, key string) string {
	if f.Configuration == nil {
		return ""
	}
	cfg, err := decodeObject(f.Configuration)
	if err != nil {
		return ""
	}
	s, err := parseString(cfg[key])
	if err != nil {
		return ""
	}
	return s
}

// bytesCodec is {"name": "bytes", "configuration": {"endian": ...}}, without
// configuration for types that have no byte order. An unspecified order
// ("=", or none) on a multi-byte type is little endian.
func bytesCodec(dt dtype.DataType, end dtype.Endian) Extension {
	e := Extension{Name: "bytes", MustUnderstand: true}
	if !dt.HasEndian() {
		return e
	}
	order := "little"
	if end == dtype.Big {
		order = "big"
	}
	e.Configuration = json.RawMessage(`{"endian":"` + order + `"}`)
	return e
}

func transposeReversed(ndim int) Extension {
	order := make([]int, ndim)
	for i := range order {
		order[i] = ndim - 1 - i
	}
	return Extension{
		Name:           "transpose",
		Configuration:  json.RawMessage(`{"order":` + string(ints(order)) + `}`),
		MustUnderstand: true,
	}
}

// endianOf reads the byte order of a bytes (or legacy endian) codec.
func endianOf(e Extension) (dtype.Endian, error) {
	if e.Configuration == nil {
		return dtype.NoEndian, nil
	}
	cfg, err := decodeObject(e.Configuration)
	if err != nil {
		return 0, err
	}
	raw, ok := cfg["endian"]
	if !ok || isNull(raw) {
		return dtype.NoEndian, nil
	}
	s, err := parseString(raw)
	switch {
	case err != nil:
		return 0, fmt.Errorf("%s: endian: %w", e.Name, err)
	case s == "little":
		return dtype.Little, nil
	case s == "big":
		return dtype.Big, nil
	}
	return 0, fmt.Errorf("%s: endian: unknown byte order %s", e.Name, strconv.Quote(s))
}
