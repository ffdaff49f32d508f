package telemetry

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"go.opentelemetry.io/otel/codes"

	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/grid"
	"github.com/zarrgw/zarrgw/core/ndarray"
	"github.com/zarrgw/zarrgw/core/store"
)

// calls counts the methods a fake codec's calls reached.
type calls struct {
	mu sync.Mutex
	m  map[string]int
}

func (c *calls) add(method string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[string]int{}
	}
	c.m[method]++
}

func (c *calls) count(method string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.m[method]
}

// errFake is what fake encodes and decodes fail with when the input is
// failBytes, to see a failure marked on the span.
var errFake = errors.New("fake codec failed")

var failBytes = []byte("fail")

// The fakes answer with a two-byte encoding, "ok", or fail.

type fakeAA struct{ log *calls }

func (f fakeAA) Name() string                   { return "fake" }
func (f fakeAA) Configuration() json.RawMessage { return nil }
func (f fakeAA) OutputSpec(_ context.Context, in codec.Spec) (codec.Spec, error) {
	f.log.add("OutputSpec")
	return in, nil
}
func (f fakeAA) EncodeArray(_ context.Context, _ codec.Spec, a *ndarray.Array) (*ndarray.Array, error) {
	f.log.add("EncodeArray")
	return a, nil
}
func (f fakeAA) DecodeArray(_ context.Context, _ codec.Spec, a *ndarray.Array) (*ndarray.Array, error) {
	f.log.add("DecodeArray")
	return a, nil
}

type fakeAB struct{ log *calls }

func (f fakeAB) Name() string                   { return "fake" }
func (f fakeAB) Configuration() json.RawMessage { return nil }
func (f fakeAB) Encode(context.Context, codec.Spec, *ndarray.Array) ([]byte, error) {
	f.log.add("Encode")
	return []byte("ok"), nil
}
func (f fakeAB) Decode(_ context.Context, _ codec.Spec, b []byte) (*ndarray.Array, error) {
	f.log.add("Decode")
	if string(b) == string(failBytes) {
		return nil, errFake
	}
	return nil, nil
}

type fakeBB struct{ log *calls }

func (f fakeBB) Name() string                   { return "fake" }
func (f fakeBB) Configuration() json.RawMessage { return nil }
func (f fakeBB) EncodeBytes(context.Context, codec.Spec, []byte) ([]byte, error) {
	f.log.add("EncodeBytes")
	return []byte("ok"), nil
}
func (f fakeBB) DecodeBytes(_ context.Context, _ codec.Spec, b []byte) ([]byte, error) {
	f.log.add("DecodeBytes")
	if string(b) == string(failBytes) {
		return nil, errFake
	}
	return []byte("decoded"), nil
}

type fakeSized struct{ log *calls }

func (f fakeSized) EncodedSize(context.Context, codec.Spec, int64) (int64, bool) {
	f.log.add("EncodedSize")
	return 2, true
}

type fakeRaw struct{ log *calls }

func (f fakeRaw) RawLayout(codec.Spec) bool {
	f.log.add("RawLayout")
	return true
}

type fakeInto struct{ log *calls }

func (f fakeInto) DecodeBytesInto(context.Context, codec.Spec, []byte, []byte) error {
	f.log.add("DecodeBytesInto")
	return nil
}

type fakeRegion struct{ log *calls }

// DecodeRegion answers that the chunk is not stored: an answer the span
// must not mark as a failure.
func (f fakeRegion) DecodeRegion(context.Context, codec.Spec, codec.RangeReader, []grid.Span) (*ndarray.Array, error) {
	f.log.add("DecodeRegion")
	return nil, fmt.Errorf("shard: %w", store.ErrNotFound)
}

type fakeRegionInto struct{ log *calls }

func (f fakeRegionInto) DecodeRegionInto(context.Context, codec.Spec, codec.RangeReader, []grid.Span, *ndarray.Array, []grid.Span) error {
	f.log.add("DecodeRegionInto")
	return nil
}

type fakeEncodeRegion struct{ log *calls }

func (f fakeEncodeRegion) EncodeRegion(context.Context, codec.Spec, []byte, []grid.Span, *ndarray.Array, []grid.Span) ([]byte, bool, error) {
	f.log.add("EncodeRegion")
	return []byte("ok"), false, nil
}

type fakeLayout struct{ log *calls }

func (f fakeLayout) DescribeLayout(context.Context, codec.Spec) (codec.Layout, error) {
	f.log.add("DescribeLayout")
	return codec.Layout{}, nil
}
func (f fakeLayout) Occupancy(context.Context, codec.Spec, codec.RangeReader) (int, int, error) {
	f.log.add("Occupancy")
	return 1, 2, nil
}

// optionalShown lists the optional interfaces of kind that c shows, by
// type assertions of the test's own.
func optionalShown(kind codec.Kind, c codec.Codec) []string {
	var out []string
	for _, name := range optionalOf[kind] {
		var ok bool
		switch name {
		case "codec.SizedCodec":
			_, ok = c.(codec.SizedCodec)
		case "codec.RawLayout":
			_, ok = c.(codec.RawLayout)
		case "codec.DecoderInto":
			_, ok = c.(codec.DecoderInto)
		case "codec.PartialDecoder":
			_, ok = c.(codec.PartialDecoder)
		case "codec.PartialDecoderInto":
			_, ok = c.(codec.PartialDecoderInto)
		case "codec.PartialEncoder":
			_, ok = c.(codec.PartialEncoder)
		case "codec.LayoutDescriber":
			_, ok = c.(codec.LayoutDescriber)
		default:
			panic("optional interface unknown to the test: " + name)
		}
		if ok {
			out = append(out, name)
		}
	}
	return out
}

func maskNames(kind codec.Kind, mask uint) []string {
	var out []string
	for i, name := range optionalOf[kind] {
		if mask&(1<<i) != 0 {
			out = append(out, name)
		}
	}
	return out
}

// callEach makes every call c shows, in the context of ctx, and returns
// the span each one should have made ("" for none) by the fake method it
// reaches.
func callEach(ctx context.Context, c codec.Codec) map[string]string {
	spec := codec.Spec{}
	want := map[string]string{}
	switch c := c.(type) {
	case codec.ArrayArray:
		c.OutputSpec(ctx, spec)
		c.EncodeArray(ctx, spec, nil)
		c.DecodeArray(ctx, spec, nil)
		want["OutputSpec"], want["EncodeArray"], want["DecodeArray"] = "", "codec.Encode", "codec.Decode"
	case codec.ArrayBytes:
		c.Encode(ctx, spec, nil)
		c.Decode(ctx, spec, []byte("abc"))
		want["Encode"], want["Decode"] = "codec.Encode", "codec.Decode"
	case codec.BytesBytes:
		c.EncodeBytes(ctx, spec, nil)
		c.DecodeBytes(ctx, spec, []byte("abc"))
		want["EncodeBytes"], want["DecodeBytes"] = "codec.Encode", "codec.Decode"
	}
	if o, ok := c.(codec.SizedCodec); ok {
		o.EncodedSize(ctx, spec, 8)
		want["EncodedSize"] = ""
	}
	if o, ok := c.(codec.RawLayout); ok {
		o.RawLayout(spec)
		want["RawLayout"] = ""
	}
	if o, ok := c.(codec.DecoderInto); ok {
		o.DecodeBytesInto(ctx, spec, []byte("abc"), make([]byte, 7))
		want["DecodeBytesInto"] = "codec.Decode"
	}
	if o, ok := c.(codec.PartialDecoder); ok {
		o.DecodeRegion(ctx, spec, nil, nil)
		want["DecodeRegion"] = "codec.DecodeRegion"
	}
	if o, ok := c.(codec.PartialDecoderInto); ok {
		o.DecodeRegionInto(ctx, spec, nil, nil, nil, nil)
		want["DecodeRegionInto"] = "codec.DecodeRegion"
	}
	if o, ok := c.(codec.PartialEncoder); ok {
		o.EncodeRegion(ctx, spec, nil, nil, nil, nil)
		want["EncodeRegion"] = "codec.EncodeRegion"
	}
	if o, ok := c.(codec.LayoutDescriber); ok {
		o.DescribeLayout(ctx, spec)
		o.Occupancy(ctx, spec, nil)
		want["DescribeLayout"], want["Occupancy"] = "", "codec.Occupancy"
	}
	return want
}

// Over a fake of every kind and every combination of the optional
// interfaces of its kind, the wrapper shows exactly the fake's, each call
// reaches the fake, and each encode and decode makes one span, the child
// of the caller's, naming the codec.
func TestCodecForwardsEveryCombination(t *testing.T) {
	rec := record(t)
	for _, kind := range []codec.Kind{codec.ArrayToArray, codec.ArrayToBytes, codec.BytesToBytes} {
		for mask := uint(0); mask < 1<<len(optionalOf[kind]); mask++ {
			want := maskNames(kind, mask)
			t.Run(fmt.Sprintf("%s/%s", kind, strings.Join(want, "+")), func(t *testing.T) {
				log := &calls{}
				inner := fakeWith(kind, mask, log)
				if got := optionalShown(kind, inner); !slices.Equal(got, want) {
					t.Fatalf("the fake shows %v, want %v", got, want)
				}
				w := Codec(inner)
				if codec.KindOf(w) != kind {
					t.Fatalf("wrapper's kind %v, want %v", codec.KindOf(w), kind)
				}
				if got := optionalShown(kind, w); !slices.Equal(got, want) {
					t.Fatalf("the wrapper shows %v, want %v", got, want)
				}
				if w.Name() != "fake" {
					t.Errorf("wrapper's name %q", w.Name())
				}
				ctx, parent := tracer().Start(t.Context(), "caller")
				rec.Reset()
				spans := callEach(ctx, w)
				parent.End()
				wantSpans := map[string]int{}
				for method, span := range spans {
					if n := log.count(method); n != 1 {
						t.Errorf("%s reached the codec %d times, want once", method, n)
					}
					if span != "" {
						wantSpans[span]++
					}
				}
				gotSpans := map[string]int{}
				for _, s := range rec.Ended() {
					if s.Name() == "caller" {
						continue
					}
					gotSpans[s.Name()]++
					if s.Parent().SpanID() != parent.SpanContext().SpanID() {
						t.Errorf("span %s is not the caller's child", s.Name())
					}
					if v, ok := attr(s, AttrCodecName); !ok || v.AsString() != "fake" {
						t.Errorf("span %s: %s = %v", s.Name(), AttrCodecName, v.Emit())
					}
					if s.Status().Code == codes.Error {
						t.Errorf("span %s failed: %s", s.Name(), s.Status().Description)
					}
				}
				if !mapsEqual(gotSpans, wantSpans) {
					t.Errorf("spans %v, want %v", gotSpans, wantSpans)
				}
			})
		}
	}
}

// A decode that fails marks its span failed; a region of a chunk that is
// not stored does not, and says so.
func TestCodecSpanOutcomes(t *testing.T) {
	rec := record(t)
	log := &calls{}
	w := Codec(fakeWith(codec.ArrayToBytes, 1<<2, log)) // a partial decoder
	if _, err := w.(codec.ArrayBytes).Decode(t.Context(), codec.Spec{}, failBytes); !errors.Is(err, errFake) {
		t.Fatalf("Decode: %v, want the codec's error", err)
	}
	if _, err := w.(codec.PartialDecoder).DecodeRegion(t.Context(), codec.Spec{}, nil, nil); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("DecodeRegion: %v, want ErrNotFound", err)
	}
	byName := map[string]spanView{}
	for _, s := range rec.Ended() {
		byName[s.Name()] = s
	}
	if s := byName["codec.Decode"]; s == nil || s.Status().Code != codes.Error || !strings.Contains(s.Status().Description, errFake.Error()) {
		t.Errorf("failed decode's span: %v", describe(s))
	}
	s := byName["codec.DecodeRegion"]
	if s == nil || s.Status().Code == codes.Error {
		t.Fatalf("region not stored: span %v", describe(s))
	}
	if v, ok := attr(s, AttrStoreFound); !ok || v.AsBool() {
		t.Errorf("region not stored: %s = %v (set: %v), want false", AttrStoreFound, v.Emit(), ok)
	}
}

// The bytes attribute is the encoded side's size.
func TestCodecSpanBytes(t *testing.T) {
	rec := record(t)
	w := Codec(fakeWith(codec.BytesToBytes, 0, &calls{})).(codec.BytesBytes)
	w.DecodeBytes(t.Context(), codec.Spec{}, []byte("12345"))
	w.EncodeBytes(t.Context(), codec.Spec{}, []byte("1234567"))
	for _, s := range rec.Ended() {
		want := map[string]int64{"codec.Decode": 5, "codec.Encode": 2}[s.Name()]
		if v, ok := attr(s, AttrCodecBytes); !ok || v.AsInt64() != want {
			t.Errorf("%s: %s = %v, want %d", s.Name(), AttrCodecBytes, v.Emit(), want)
		}
	}
}

// Resolver wraps what it resolves, keeping its optional interfaces, and
// passes errors on.
func TestResolverWraps(t *testing.T) {
	rec := record(t)
	r := Resolver(resolverFunc(func(name string) (codec.Codec, error) {
		if name == "missing" {
			return nil, codec.ErrUnavailable
		}
		return fakeWith(codec.BytesToBytes, 2, &calls{}), nil // with DecoderInto
	}))
	c, err := r.Codec(t.Context(), "fake", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := c.(codec.DecoderInto); !ok {
		t.Errorf("resolved codec %T lost DecoderInto", c)
	}
	c.(codec.BytesBytes).DecodeBytes(t.Context(), codec.Spec{}, []byte("x"))
	if got := len(rec.Ended()); got != 1 {
		t.Errorf("a decode through the resolved codec made %d spans, want 1", got)
	}
	if _, err := r.Codec(t.Context(), "missing", nil); !errors.Is(err, codec.ErrUnavailable) {
		t.Errorf("missing codec: %v", err)
	}
}

type resolverFunc func(name string) (codec.Codec, error)

func (f resolverFunc) Codec(_ context.Context, name string, _ json.RawMessage) (codec.Codec, error) {
	return f(name)
}

func mapsEqual(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}
