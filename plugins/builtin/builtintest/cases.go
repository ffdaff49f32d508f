// Package builtintest lists the conformance cases (core/codec/codectest)
// of every codec bundled with zarrgw: the configurations each codec is
// checked with, in process and out of process alike.
package builtintest

import (
	"encoding/json"
	"math/rand/v2"

	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/ndarray"

	"github.com/zarrgw/zarrgw/core/codec/codectest"
)

// Cases returns at least one case for every bundled codec.
func Cases() []codectest.Case {
	fixed := codectest.FixedTypes()
	// Integers only: deltas of floats lose precision, as numpy's do.
	integers := codectest.Named("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")
	floats := codectest.Named("float32", "float64")
	shapes := [][]int{{0}, {7}, {3, 5}, {2, 3, 4}}
	cfg := func(s string) json.RawMessage { return json.RawMessage(s) }
	return []codectest.Case{
		{Name: "bytes", Configuration: cfg(`{"endian":"little"}`), Specs: codectest.Specs(fixed, shapes...)},
		{Name: "bytes", Configuration: cfg(`{"endian":"big"}`), Specs: codectest.Specs(fixed, shapes...)},
		{Name: "vlen-utf8", Specs: codectest.Specs(codectest.Named("string"), []int{0}, []int{5}, []int{2, 3})},
		{Name: "vlen-bytes", Specs: codectest.Specs(codectest.Named("bytes"), []int{0}, []int{5}, []int{2, 3})},
		{Name: "numcodecs.json2", Specs: codectest.Specs(codectest.Named("string"), []int{0}, []int{5}, []int{2, 3})},
		{Name: "transpose", Configuration: cfg(`{"order":[1,0]}`), Specs: codectest.Specs(append(fixed, codectest.Named("string")...), []int{3, 5}, []int{0, 4})},
		{Name: "transpose", Configuration: cfg(`{"order":[2,0,1]}`), Specs: codectest.Specs(fixed, []int{2, 3, 4})},
		{Name: "numcodecs.delta", Specs: codectest.Specs(integers, []int{0}, []int{9}, []int{3, 4})},
		{Name: "numcodecs.delta", Configuration: cfg(`{"dtype":"<i4","astype":"<i8"}`), Specs: codectest.Specs(codectest.Named("int32"), []int{9})},
		{Name: "numcodecs.fixedscaleoffset", Configuration: cfg(`{"offset":1000,"scale":10,"dtype":"<f8","astype":"<i4"}`),
			Specs: codectest.Specs(codectest.Named("float64"), []int{9}, []int{3, 4}), Lossy: true, Values: codectest.FiniteFloats},
		{Name: "numcodecs.quantize", Configuration: cfg(`{"digits":3,"dtype":"<f8"}`),
			Specs: codectest.Specs(codectest.Named("float64"), []int{9}, []int{3, 4}), Lossy: true, Values: codectest.FiniteFloats},
		{Name: "numcodecs.bitround", Configuration: cfg(`{"keepbits":5}`),
			Specs: codectest.Specs(floats, []int{9}, []int{3, 4}), Lossy: true, Values: codectest.FiniteFloats},
		{Name: "cast_value", Configuration: cfg(`{"data_type":"int32"}`), Specs: codectest.Specs(codectest.Named("int16", "uint16", "int8"), []int{0}, []int{9}, []int{3, 4})},
		{Name: "cast_value", Configuration: cfg(`{"data_type":"float32","out_of_range":"clamp"}`),
			Specs: codectest.Specs(codectest.Named("float64"), []int{9}, []int{3, 4}), Lossy: true, Values: codectest.FiniteFloats},
		{Name: "scale_offset", Configuration: cfg(`{"offset":0.5,"scale":4}`),
			Specs: codectest.Specs(floats, []int{0}, []int{9}, []int{3, 4}), Lossy: true, Values: codectest.FiniteFloats},
		{Name: "scale_offset", Specs: codectest.Specs(integers, []int{9})},
		{Name: "reshape", Configuration: cfg(`{"shape":[-1]}`), Specs: codectest.Specs(append(fixed, codectest.Named("string")...), []int{0}, []int{3, 5}, []int{2, 3, 4})},
		{Name: "reshape", Configuration: cfg(`{"shape":[[0,1],[2]]}`), Specs: codectest.Specs(fixed, []int{2, 3, 4})},
		{Name: "packbits", Specs: codectest.Specs(codectest.Named("bool", "int8", "uint16", "float32", "complex128"), []int{0}, []int{9}, []int{3, 5})},
		{Name: "packbits", Configuration: cfg(`{"padding_encoding":"last_byte","last_bit":4}`), Specs: codectest.Specs(codectest.Named("int8", "int32"), []int{9}), Values: lowBits(5)},
		{Name: "gzip", Configuration: cfg(`{"level":5}`), Detects: true},
		{Name: "numcodecs.zlib", Configuration: cfg(`{"level":1}`), Detects: true},
		{Name: "zstd", Configuration: cfg(`{"level":0,"checksum":false}`)},
		{Name: "zstd", Configuration: cfg(`{"level":3,"checksum":true}`), Detects: true},
		{Name: "numcodecs.lz4", Configuration: cfg(`{"acceleration":1}`)},
		{Name: "numcodecs.bz2", Configuration: cfg(`{"level":1}`), Detects: true},
		{Name: "numcodecs.shuffle", Configuration: cfg(`{"elementsize":4}`)},
		{Name: "conditional", Configuration: cfg(`{"codecs":[{"name":"numcodecs.shuffle","configuration":{"elementsize":4}},{"name":"zstd","configuration":{"level":1,"checksum":false}}]}`)},
		{Name: "conditional", Configuration: cfg(`{"codecs":[{"name":"crc32c"}],"header_bits":16}`)},
		{Name: "n5_default", Configuration: cfg(`{"codecs":[{"name":"transpose","configuration":{"order":[1,0]}},{"name":"bytes","configuration":{"endian":"big"}},{"name":"gzip","configuration":{"level":1}}]}`),
			Specs: codectest.Specs(codectest.Named("uint8", "int16", "uint64", "float32", "float64"), []int{3, 5}, []int{0, 4})},
		{Name: "crc32c", Detects: true},
		{Name: "numcodecs.crc32", Detects: true},
		{Name: "numcodecs.adler32", Detects: true},
		{Name: "numcodecs.fletcher32", Detects: true},
		{Name: "blosc", Configuration: cfg(`{"cname":"lz4","clevel":5,"shuffle":"shuffle","typesize":4,"blocksize":0}`)},
		{Name: "blosc", Configuration: cfg(`{"cname":"zstd","clevel":3,"shuffle":"bitshuffle","typesize":4,"blocksize":0}`)},
		{Name: "blosc", Configuration: cfg(`{"cname":"blosclz","clevel":9,"shuffle":"noshuffle","typesize":1,"blocksize":256}`)},
		{Name: "sharding_indexed", Configuration: cfg(`{"chunk_shape":[2,3],"codecs":[{"name":"bytes","configuration":{"endian":"little"}}],
			"index_codecs":[{"name":"bytes","configuration":{"endian":"little"}},{"name":"crc32c"}],"index_location":"end"}`),
			Specs: codectest.Specs(codectest.Named("int16", "float64"), []int{4, 6}, []int{6, 3})},
		{Name: "sharding_indexed", Configuration: cfg(`{"chunk_shape":[4],"codecs":[{"name":"bytes","configuration":{"endian":"little"}},{"name":"zstd","configuration":{"level":1,"checksum":false}}],
			"index_codecs":[{"name":"bytes","configuration":{"endian":"little"}}],"index_location":"start"}`),
			Specs: codectest.Specs(codectest.Named("uint8", "int32"), []int{16})},
	}
}

// lowBits makes chunks of integers that fit in bits (sign-extended for
// signed types), which a packbits codec keeping bits bits stores whole.
func lowBits(bits uint) func(rng *rand.Rand, in codec.Spec) *ndarray.Array {
	return func(rng *rand.Rand, in codec.Spec) *ndarray.Array {
		a := ndarray.New(in.DataType, in.Shape)
		for i := 0; i < a.Len(); i++ {
			v := rng.Int64N(1<<bits) - 1<<(bits-1)
			for k := range in.DataType.Size {
				a.Data[i*in.DataType.Size+k] = byte(v >> (8 * k))
			}
		}
		return a
	}
}
