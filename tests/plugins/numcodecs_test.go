package plugins

import (
	"encoding/binary"
	"encoding/json"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/codec/codectest"
	"github.com/zarrgw/zarrgw/core/dtype"
	"github.com/zarrgw/zarrgw/core/ndarray"
	"github.com/zarrgw/zarrgw/host/runtime/registry"
)

// numcodecsBridge is the bridge's entry point in this checkout.
func numcodecsBridge() string {
	return filepath.Join(repoRoot(), "plugins", "python", "numcodecs", "zarrgw-plugin-numcodecs")
}

// The numcodecs bridge's codecs pass the codec conformance suite out of
// process, under their v2 ids and their zarr-python 3 names: zfpy (a v2
// compressor that needs the array, and array->bytes in v3), lzma, packbits
// and categorize (filters that change the dtype and shape), and delta,
// which zarrgw bundles and the bridge serves only when asked to.
func TestNumcodecsBridgeConformance(t *testing.T) {
	needPythonSDK(t)
	l, _ := newLauncher(t)
	addPlugin(t, l, "zarrgw.dev/numcodecs/numcodecs", numcodecsBridge(), nil,
		"--codecs", "zfpy,lzma,packbits,categorize,delta")
	codecs := registry.Bundled().InProcess().WithPlugins(l).Codecs()
	cfg := func(s string) json.RawMessage { return json.RawMessage(s) }
	floats := codectest.Named("float32", "float64")
	labels := []string{"a", "bb", "ccc"}
	u3 := dtype.DataType{Kind: dtype.FixedUnicode, Size: 12, Name: "U3"}
	var cases []codectest.Case
	for _, prefix := range []string{"", "numcodecs."} {
		cases = append(cases,
			codectest.Case{Name: prefix + "zfpy", Specs: codectest.Specs(floats, []int{9}, []int{3, 4}, []int{2, 3, 4}), Values: codectest.FiniteFloats, Unframed: true},
			codectest.Case{Name: prefix + "zfpy", Configuration: cfg(`{"mode":4,"tolerance":0.01}`), Lossy: true, Unframed: true,
				Specs: codectest.Specs(codectest.Named("float64"), []int{16}, []int{4, 4}), Values: codectest.FiniteFloats},
			codectest.Case{Name: prefix + "lzma", Detects: true},
			codectest.Case{Name: prefix + "lzma", Configuration: cfg(`{"preset":1}`), Detects: true,
				Specs: codectest.Specs(codectest.Named("int16"), []int{50})},
			codectest.Case{Name: prefix + "packbits", Specs: codectest.Specs(codectest.Named("bool"), []int{0}, []int{9}, []int{3, 5}, []int{2, 8})},
			codectest.Case{Name: prefix + "categorize", Configuration: cfg(`{"labels":["a","bb","ccc"],"dtype":"<U3","astype":"|u1"}`),
				Specs: codectest.Specs([]dtype.DataType{u3}, []int{7}, []int{2, 3}), Values: unicodeOf(labels)},
			codectest.Case{Name: prefix + "delta", Configuration: cfg(`{"dtype":"<i4"}`),
				Specs: codectest.Specs(codectest.Named("int32"), []int{0}, []int{9}, []int{3, 4})},
			codectest.Case{Name: prefix + "delta", Configuration: cfg(`{"dtype":"<i4","astype":"<i2"}`),
				Specs: codectest.Specs(codectest.Named("int32"), []int{9}), Values: smallSteps},
		)
	}
	codectest.Run(t, remoteOnly{codecs}, cases)
}

// unicodeOf makes fixed-width unicode chunks of the given labels.
func unicodeOf(labels []string) func(rng *rand.Rand, in codec.Spec) *ndarray.Array {
	return func(rng *rand.Rand, in codec.Spec) *ndarray.Array {
		a := ndarray.New(in.DataType, in.Shape)
		width := in.DataType.Size / 4
		for i := range a.Len() {
			s := []rune(labels[rng.IntN(len(labels))])
			for j := 0; j < width && j < len(s); j++ {
				binary.LittleEndian.PutUint32(a.Data[in.DataType.Size*i+4*j:], uint32(s[j]))
			}
		}
		return a
	}
}

// smallSteps makes int32 chunks whose neighbours differ by less than
// 2^15, so that deltas fit an int16.
func smallSteps(rng *rand.Rand, in codec.Spec) *ndarray.Array {
	a := ndarray.New(in.DataType, in.Shape)
	v := int32(rng.IntN(1 << 12))
	for i := range a.Len() {
		v += int32(rng.IntN(1<<15)) - 1<<14
		binary.LittleEndian.PutUint32(a.Data[4*i:], uint32(v))
	}
	return a
}
