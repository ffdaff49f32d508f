package json2

import (
	"encoding/json"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/zarrgw/zarrgw/tests/support/fixtures/fixturecheck"

	"github.com/zarrgw/zarrgw/tests/support/fixtures"

	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/codec/codectest"
	"github.com/zarrgw/zarrgw/core/dtype"
	"github.com/zarrgw/zarrgw/core/ndarray"
)

var newCodec = codectest.Builder[*Codec](New)

func strArray(shape []int, s ...string) *ndarray.Array {
	return &ndarray.Array{DType: dtype.Named("string"), Shape: shape, Strings: s}
}

// zarr-python 2 wrote ["foo","bar","baz","qux"] with numcodecs JSON.
func TestFixture(t *testing.T) {
	const arr = "zarrita-js/v2/data.zarr/1d.contiguous.json2.O"
	raw := fixtures.Read(t, arr+"/0")
	want := fixturecheck.ExpectedStrings(t, fixtures.Array(t, arr))
	c := newCodec(t, `{"allow_nan":true,"check_circular":true,"encoding":"utf-8","ensure_ascii":true,"id":"json2","indent":null,"separators":[",",":"],"skipkeys":false,"sort_keys":true,"strict":true}`)
	spec := codec.Spec{DataType: dtype.Named("string"), Shape: []int{4}, DecodedSize: -1}
	dec, err := c.Decode(t.Context(), spec, raw)
	if err != nil || !slices.Equal(dec.Strings, want) {
		t.Fatalf("%q %v, want %q", dec.Strings, err, want)
	}
	enc, err := c.Encode(t.Context(), spec, strArray([]int{4}, want...))
	if err != nil || string(enc) != string(raw) {
		t.Errorf("encoded %s, numcodecs wrote %s", enc, raw)
	}
}

// Expected bytes from Python's json module (json.dumps with
// ensure_ascii and separators (",", ":")) for tolist() + dtype + shape.
func TestPythonEscaping(t *testing.T) {
	a := strArray([]int{2, 2}, "a\"b\\c", "\n\t\x01\x7f\b\f\r", "é€😀", "</>&")
	enc, err := newCodec(t, "").Encode(t.Context(), codectest.ArraySpec(a), a)
	want := `[["a\"b\\c","\n\t\u0001\u007f\b\f\r"],["\u00e9\u20ac\ud83d\ude00","</>&"],"|O",[2,2]]`
	if err != nil || string(enc) != want {
		t.Errorf("got  %s\nwant %s", enc, want)
	}
	b := strArray([]int{2}, "é€😀", "x")
	enc, _ = newCodec(t, `{"ensure_ascii":false}`).Encode(t.Context(), codectest.ArraySpec(b), b)
	if want := `["é€😀","x","|O",[2]]`; string(enc) != want {
		t.Errorf("got %s, want %s", enc, want)
	}
}

func TestRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, cfg := range []string{"", `{"ensure_ascii":false}`} {
		c := newCodec(t, cfg)
		for range 100 {
			a := codectest.Array(rng, dtype.Named("string"), codectest.Shape(rng, 3, 4))
			spec := codectest.ArraySpec(a)
			enc, err := c.Encode(t.Context(), spec, a)
			if err != nil {
				t.Fatal(err)
			}
			if !json.Valid(enc) {
				t.Fatalf("invalid JSON %s", enc)
			}
			dec, err := c.Decode(t.Context(), spec, enc)
			if err != nil {
				t.Fatalf("%s: %v", enc, err)
			}
			codectest.EqualArrays(t, dec, a)
		}
	}
}

func TestDecodeVariants(t *testing.T) {
	c := newCodec(t, "")
	spec := codec.Spec{DataType: dtype.Named("string"), Shape: []int{2, 2}, DecodedSize: -1}
	for in, want := range map[string][]string{
		`[["a","b"],["c",null],"|O",[2,2]]`: {"a", "b", "c", ""},  // numcodecs None
		`["a","b","c","d","|O",[4]]`:        {"a", "b", "c", "d"}, // flat, same count
	} {
		dec, err := c.Decode(t.Context(), spec, []byte(in))
		if err != nil || !slices.Equal(dec.Strings, want) {
			t.Errorf("%s: %q %v", in, dec.Strings, err)
		}
	}
	for _, in := range []string{
		``, `{}`, `[`, `["|O"]`, `["a","b","c","|O",[3]]`, `["a","b","c","d","|O",[5]]`,
		`["a","b","c","|O",[4]]`, `["a","b","c","d","e","|O",[4]]`, `[1,2,3,4,"|O",[4]]`,
		`["a","b","c","d","|O","x"]`, `["a","b","c","d","|O",[-4]]`, `["a","b","c","d","|O",[4611686018427387904,4]]`, `["a","b","c","d","|O",[-2,-2]]`,
	} {
		_, err := c.Decode(t.Context(), spec, []byte(in))
		codectest.MustCorrupt(t, err, in)
	}
}

func TestConfiguration(t *testing.T) {
	if got := string(newCodec(t, "").Configuration()); got != defaults {
		t.Errorf("default configuration %s", got)
	}
	if got := string(newCodec(t, `{"id":"json2","ensure_ascii":false, "indent":null}`).Configuration()); got != `{"ensure_ascii":false,"indent":null}` {
		t.Errorf("configuration %s", got)
	}
	codectest.CheckRefused(t, New, `{"encoding":"latin-1"}`, `{"ensure_ascii":"yes"}`, `[1]`)
	c := newCodec(t, "")
	if _, err := c.Encode(t.Context(), codec.Spec{DataType: dtype.Named("string"), Shape: []int{1}}, strArray([]int{1}, "\xff")); err == nil {
		t.Error("invalid UTF-8 encoded")
	}
	if _, err := c.Encode(t.Context(), codec.Spec{DataType: dtype.Named("int8"), Shape: []int{1}}, &ndarray.Array{}); err == nil {
		t.Error("fixed-size type accepted")
	}
}
