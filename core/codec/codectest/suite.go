// Package codectest is the conformance suite every codec runs (bundled or
// from a plugin, in process or out of process), the sibling of
// core/store/storetest: round trips, encoded sizes, partial decodes where
// a codec offers them, and corrupt input, which must fail with an error
// wrapping codec.ErrCorrupt and never panic. It also holds the helpers the
// codec packages' own tests share (random arrays, bombs, round trips).
package codectest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/dtype"
	"github.com/zarrgw/zarrgw/core/ndarray"
)

// Case is one codec configuration the suite checks.
type Case struct {
	// Name is the codec's name (or an alias, or a URI), Configuration its
	// configuration as found in metadata.
	Name          string
	Configuration json.RawMessage
	// Specs are chunk specs the codec takes: for array codecs the array it
	// encodes (type, shape, fill value); for bytes->bytes codecs the array
	// at the chain's array->bytes boundary, whose raw size is the input's
	// length. Empty: bytes of several sizes.
	Specs []codec.Spec
	// Lossy codecs decode to an approximation of their input; the suite
	// then checks that a decoded chunk survives a second round trip
	// unchanged instead of comparing it with the input.
	Lossy bool
	// Detects says that a corrupted encoding never decodes silently to
	// wrong data (a checksum, or a structure that notices any change).
	Detects bool
	// Unframed says that the encoding does not record its own length (zfp
	// streams end with bits the decoder never reads): a prefix of it may
	// decode without an error, but only to exactly the chunk the whole
	// encoding decodes to, never to other data.
	Unframed bool
	// Values makes a chunk of spec in; nil: random elements.
	Values func(rng *rand.Rand, in codec.Spec) *ndarray.Array
}

// check is one conformance check.
type check struct {
	name string
	run  func(t *testing.T, c codec.Codec, k Case)
	// applies says whether the check is one for c (nil: every codec); a
	// check that does not apply is not run, rather than run and skipped.
	applies func(c codec.Codec) bool
}

var checks = []check{
	{"Build", checkBuild, nil},
	{"RoundTrip", checkRoundTrip, nil},
	{"Sizes", checkSizes, implements[codec.SizedCodec]},
	{"Partial", checkPartial, implements[codec.PartialDecoder]},
	{"Corrupt", checkCorrupt, nil},
}

// implements reports whether c offers the optional interface I.
func implements[I any](c codec.Codec) bool {
	_, ok := c.(I)
	return ok
}

// Run checks every case, each codec built by r, as subtests named by the
// case (its name) and the check.
func Run(t *testing.T, r codec.Resolver, cases []Case) {
	t.Helper()
	for _, k := range cases {
		t.Run(k.Name, func(t *testing.T) {
			c, err := r.Codec(t.Context(), k.Name, k.Configuration)
			if err != nil {
				t.Fatalf("build %s %s: %v", k.Name, k.Configuration, err)
			}
			if codec.KindOf(c) == 0 {
				t.Fatalf("%s (%T) implements none or several codec kinds", k.Name, c)
			}
			for _, chk := range checks {
				if chk.applies != nil && !chk.applies(c) {
					continue
				}
				t.Run(chk.name, func(t *testing.T) {
					if chk.name == "Build" {
						chk.run(t, rebuilt{c, r}, k)
						return
					}
					chk.run(t, c, k)
				})
			}
		})
	}
}

// rebuilt carries the resolver to the Build check.
type rebuilt struct {
	codec.Codec
	r codec.Resolver
}

// checkBuild: the codec reports a name and a configuration (a JSON object
// or none) that build the same codec again: metadata written from it
// reads back.
func checkBuild(t *testing.T, c codec.Codec, k Case) {
	b := c.(rebuilt)
	if b.Name() == "" {
		t.Fatal("empty name")
	}
	cfg := b.Configuration()
	if cfg != nil {
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(cfg, &obj); err != nil {
			t.Fatalf("configuration %s is not a JSON object: %v", cfg, err)
		}
	}
	again, err := b.r.Codec(t.Context(), b.Name(), cfg)
	if err != nil {
		t.Fatalf("the codec's own name and configuration %s %s do not build it: %v", b.Name(), cfg, err)
	}
	if again.Name() != b.Name() || !jsonEqual(again.Configuration(), cfg) || codec.KindOf(again) != codec.KindOf(b.Codec) {
		t.Fatalf("rebuilt from %s %s as %s %s", b.Name(), cfg, again.Name(), again.Configuration())
	}
}

func jsonEqual(a, b json.RawMessage) bool {
	var x, y any
	if (a == nil) != (b == nil) {
		return false
	}
	if a == nil {
		return true
	}
	return json.Unmarshal(a, &x) == nil && json.Unmarshal(b, &y) == nil && fmt.Sprint(x) == fmt.Sprint(y)
}

// specs returns the case's specs, or bytes of several sizes.
func (k Case) specs() []codec.Spec {
	if len(k.Specs) > 0 {
		return k.Specs
	}
	var out []codec.Spec
	for _, n := range []int{0, 1, 100, 4096, 70000} {
		out = append(out, codec.Spec{DataType: dtype.Named("uint8"), Shape: []int{n}, DecodedSize: -1})
	}
	return append(out, codec.Spec{DataType: dtype.Named("float32"), Shape: []int{1000}, DecodedSize: -1})
}

// chunk makes the input of one round trip of spec in.
func (k Case) chunk(rng *rand.Rand, in codec.Spec) *ndarray.Array {
	if k.Values != nil {
		return k.Values(rng, in)
	}
	a := Array(rng, in.DataType, in.Shape)
	if !in.DataType.Variable() && rng.IntN(2) == 0 {
		copy(a.Data, Bytes(rng, len(a.Data), true)) // something to compress
	}
	if in.DataType.Kind == dtype.Bool {
		for i := range a.Data {
			a.Data[i] &= 1
		}
	}
	return a
}

// value is one encoded or decoded chunk: an array, or bytes.
type value struct {
	a *ndarray.Array
	b []byte
}

func (v value) equal(w value) bool {
	if v.a == nil || w.a == nil {
		return v.a == nil && w.a == nil && bytes.Equal(v.b, w.b)
	}
	return v.a.DType.Equal(w.a.DType) && slices.Equal(v.a.Shape, w.a.Shape) &&
		bytes.Equal(v.a.Data, w.a.Data) && slices.Equal(v.a.Strings, w.a.Strings)
}

func (v value) clone() value {
	if v.a != nil {
		return value{a: Clone(v.a)}
	}
	return value{b: slices.Clone(v.b)}
}

func (v value) String() string {
	if v.a != nil {
		return fmt.Sprintf("%s%v", v.a.DType, v.a.Shape)
	}
	return fmt.Sprintf("%d bytes", len(v.b))
}

// input is the decoded form of a chunk for the codec's kind: the array, or
// for bytes->bytes codecs its bytes.
func input(c codec.Codec, a *ndarray.Array) value {
	if codec.KindOf(c) == codec.BytesToBytes {
		return value{b: a.Data}
	}
	return value{a: a}
}

// bytesSpec is in as a bytes->bytes stage sees it: the exact decoded size
// known (n >= 0) or not (-1), with a bound (0 none).
func bytesSpec(in codec.Spec, n, bound int64) codec.Spec {
	in.DecodedSize, in.MaxDecodedSize = n, bound
	return in
}

// encode runs the codec's encode on v.
func encode(ctx context.Context, c codec.Codec, in codec.Spec, v value) (value, error) {
	switch c := c.(type) {
	case codec.ArrayArray:
		a, err := c.EncodeArray(ctx, in, v.a)
		return value{a: a}, err
	case codec.ArrayBytes:
		b, err := c.Encode(ctx, in, v.a)
		return value{b: b}, err
	case codec.BytesBytes:
		n := int64(len(v.b))
		b, err := c.EncodeBytes(ctx, bytesSpec(in, n, n), v.b)
		return value{b: b}, err
	}
	return value{}, fmt.Errorf("%s implements no codec kind", c.Name())
}

// decode runs the codec's decode on an encoded value, recovering a panic
// into an error that says so (and wraps nothing). For bytes->bytes codecs
// n and bound are the spec's decoded size and limit.
func decode(ctx context.Context, c codec.Codec, in codec.Spec, enc value, n, bound int64) (out value, err error) {
	defer func() {
		if r := recover(); r != nil {
			out, err = value{}, fmt.Errorf("decode panicked: %v", r)
		}
	}()
	switch c := c.(type) {
	case codec.ArrayArray:
		a, err := c.DecodeArray(ctx, in, enc.a)
		return value{a: a}, err
	case codec.ArrayBytes:
		a, err := c.Decode(ctx, in, enc.b)
		return value{a: a}, err
	case codec.BytesBytes:
		b, err := c.DecodeBytes(ctx, bytesSpec(in, n, bound), enc.b)
		return value{b: b}, err
	}
	return value{}, fmt.Errorf("%s implements no codec kind", c.Name())
}
