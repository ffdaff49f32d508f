package plugins

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"math"
	"math/rand/v2"
	"os/exec"
	"strings"
	"testing"

	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/codec/codectest"
	"github.com/zarrgw/zarrgw/core/ndarray"
	"github.com/zarrgw/zarrgw/host/runtime/registry"
)

// zfpShapes are chunk shapes of every dimensionality zfp has fields for,
// with partial blocks (sides not multiples of 4). The 0-dimensional chunk
// (a field of one value) is left out here: the Python SDK sends a decoded
// 0-dimensional array back as one of shape [1] (numpy's
// ascontiguousarray makes at least one dimension), which this suite
// counts as another chunk; zfp_interop_test.go reads one through zarrgw.
var zfpShapes = [][]int{{9}, {3, 5}, {2, 3, 5}, {2, 3, 4, 5}}

// The registered zfp codec, served by the numcodecs bridge in its default
// set (no --codecs), passes the codec conformance suite out of process:
// reversible round trips exactly for every data type it takes (the six of
// the spec and the promoted 8/16-bit ones), the lossy modes survive a
// second round trip, and truncated, altered and garbage streams are
// corrupt chunks or decode to the whole stream's chunk, never to others.
// The modes zfpy cannot run and the chunks zfp cannot hold are refused
// with errors naming the codec.
func TestZfpBridgeConformance(t *testing.T) {
	needPythonSDK(t)
	needZfpy(t)
	l, _ := newLauncher(t)
	addPlugin(t, l, "zarrgw.dev/numcodecs/numcodecs", numcodecsBridge(), nil)
	codecs := registry.Bundled().InProcess().WithPlugins(l).Codecs()
	cfg := func(s string) json.RawMessage { return json.RawMessage(s) }
	floats := codectest.Named("float32", "float64")
	ints := codectest.Named("int32", "int64", "int8", "uint8", "int16", "uint16")
	unsigned := codectest.Named("uint32", "uint64")
	shapes := append([][]int{{0}}, zfpShapes...)
	reversible := cfg(`{"mode":"reversible"}`)
	cases := []codectest.Case{
		{Name: "zfp", Configuration: reversible, Specs: codectest.Specs(floats, shapes...), Values: codectest.FiniteFloats, Unframed: true},
		{Name: "zfp", Configuration: reversible, Specs: codectest.Specs(ints, shapes...), Unframed: true},
		{Name: "zfp", Configuration: reversible, Specs: codectest.Specs(unsigned, shapes...), Values: belowSignedMax, Unframed: true},
		{Name: "zfp", Configuration: reversible, Specs: codectest.Specs(codectest.Named("float16"), []int{9}, []int{3, 5}), Unframed: true},
		// zfp's lossy modes do not in general give back what they decode
		// when they encode it again (the suite's check of lossy codecs):
		// on chunks of small integers fixed_accuracy is exact and
		// fixed_precision stable, and on constant chunks fixed_rate is.
		// zfp_interop_test.go checks their values against zfpy's own.
		{Name: "zfp", Configuration: cfg(`{"mode":"fixed_accuracy","tolerance":0.05}`), Unframed: true,
			Specs: codectest.Specs(floats, zfpShapes...), Values: smallIntegers},
		{Name: "zfp", Configuration: cfg(`{"mode":"fixed_precision","precision":19}`), Lossy: true, Unframed: true,
			Specs: codectest.Specs(codectest.Named("float64", "int64", "int32"), zfpShapes...), Values: smallIntegers},
		{Name: "zfp", Configuration: cfg(`{"mode":"fixed_rate","rate":10.5}`), Lossy: true, Unframed: true,
			Specs: codectest.Specs(codectest.Named("float32", "float64", "int32"), zfpShapes...), Values: constant},
	}
	codectest.Run(t, remoteOnly{codecs}, cases)

	ctx := context.Background()
	refused := map[string]string{
		`{"mode":"expert","minbits":1,"maxbits":13,"maxprec":19,"minexp":-2}`: `mode "expert" is not served`,
		`{"mode":"fixed_rate"}`:                      `needs 'rate'`,
		`{"mode":"fixed_rate","rate":-1}`:            `rate -1 is not in`,
		`{"mode":"fixed_rate","rate":1e9}`:           `rate 1000000000`,
		`{"mode":"fixed_accuracy","tolerance":-0.1}`: `tolerance -0.1 is negative`,
		`{"mode":"reversible","rate":8}`:             `takes no 'rate'`,
		`{"mode":"lossless"}`:                        `mode 'lossless' is none of`,
	}
	for config, want := range refused {
		_, err := codecs.Codec(ctx, "zfp", json.RawMessage(config))
		if err == nil || !strings.Contains(err.Error(), "zfp") || !strings.Contains(err.Error(), want) {
			t.Errorf("zfp %s: error %v, want one naming zfp and saying %q", config, err, want)
		}
	}
	c, err := codecs.Codec(ctx, "zfp", reversible)
	if err != nil {
		t.Fatal(err)
	}
	ab := c.(codec.ArrayBytes)
	for _, k := range []struct {
		spec codec.Spec
		want string
	}{
		{codectest.Specs(floats[:1], []int{1, 2, 3, 4, 5})[0], "zfp fields have 1 to 4"},
		{codectest.Specs(codectest.Named("bool"), []int{4})[0], "no data type bool"},
	} {
		a := ndarray.New(k.spec.DataType, k.spec.Shape)
		if _, err := ab.Encode(ctx, k.spec, a); err == nil || !strings.Contains(err.Error(), k.want) {
			t.Errorf("zfp encoding %v: error %v, want one saying %q", k.spec, err, k.want)
		}
	}
	// zarrs clamps uint32 values above 2^31-1 (zfp holds them as int32):
	// the bridge refuses to write such a value rather than another one.
	spec := codectest.Specs(unsigned[:1], []int{4})[0]
	a := ndarray.New(spec.DataType, spec.Shape)
	binary.LittleEndian.PutUint32(a.Data[4:], 1<<31)
	if _, err := ab.Encode(ctx, spec, a); err == nil || !strings.Contains(err.Error(), "2147483648 is above 2147483647") {
		t.Errorf("zfp encoding a uint32 of 2^31: error %v, want a refusal", err)
	}
	ac, err := codecs.Codec(ctx, "zfp", json.RawMessage(`{"mode":"fixed_accuracy","tolerance":1}`))
	if err != nil {
		t.Fatal(err)
	}
	spec = codectest.Specs(codectest.Named("int32"), []int{4})[0]
	if _, err := ac.(codec.ArrayBytes).Encode(ctx, spec, ndarray.New(spec.DataType, spec.Shape)); err == nil ||
		!strings.Contains(err.Error(), `"fixed_accuracy" is for floating-point data, not int32`) {
		t.Errorf("zfp fixed_accuracy on int32: error %v, want a refusal", err)
	}
}

// belowSignedMax makes uint32 or uint64 chunks of values zfp holds (at
// most the signed type's maximum), the extremes included.
func belowSignedMax(rng *rand.Rand, in codec.Spec) *ndarray.Array {
	a := ndarray.New(in.DataType, in.Shape)
	for i := range a.Len() {
		if in.DataType.Size == 4 {
			v := rng.Uint32() >> 1
			if i == 0 {
				v = 1<<31 - 1
			}
			binary.LittleEndian.PutUint32(a.Data[4*i:], v)
		} else {
			v := rng.Uint64() >> 1
			if i == 0 {
				v = 1<<63 - 1
			}
			binary.LittleEndian.PutUint64(a.Data[8*i:], v)
		}
	}
	return a
}

// smallIntegers makes chunks of integers in [-8, 8] (as floats for the
// float types).
func smallIntegers(rng *rand.Rand, in codec.Spec) *ndarray.Array {
	return valuesOf(in, func(int) float64 { return float64(rng.IntN(17) - 8) })
}

// constant makes chunks whose every element is 3.
func constant(_ *rand.Rand, in codec.Spec) *ndarray.Array {
	return valuesOf(in, func(int) float64 { return 3 })
}

// valuesOf makes a chunk of spec in (float32/64 or int32/64) of f's values.
func valuesOf(in codec.Spec, f func(i int) float64) *ndarray.Array {
	a := ndarray.New(in.DataType, in.Shape)
	for i := range a.Len() {
		v := f(i)
		switch in.DataType.Name {
		case "float32":
			binary.LittleEndian.PutUint32(a.Data[4*i:], math.Float32bits(float32(v)))
		case "float64":
			binary.LittleEndian.PutUint64(a.Data[8*i:], math.Float64bits(v))
		case "int32":
			binary.LittleEndian.PutUint32(a.Data[4*i:], uint32(int32(v)))
		case "int64":
			binary.LittleEndian.PutUint64(a.Data[8*i:], uint64(int64(v)))
		default:
			panic("valuesOf: " + in.DataType.Name)
		}
	}
	return a
}

// needZfpy fails (under CI) or skips the test when Debian's Python lacks
// zfpy, which the bridge runs zfp with.
func needZfpy(t *testing.T) {
	t.Helper()
	if out, err := exec.Command(debianPython, "-c", "import numcodecs, zfpy").CombinedOutput(); err != nil {
		needPythonPackages(t, "python3-numcodecs, python3-zfpy", err, out)
	}
}
