package pluginapi

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"slices"
	"testing"

	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/codec/codectest"
	"github.com/zarrgw/zarrgw/core/extension"
	"github.com/zarrgw/zarrgw/core/grid"
	"github.com/zarrgw/zarrgw/core/ndarray"
)

// Codecs of each kind served over the protocol pass the codec conformance
// suite: round trips (batched and streamed), sizes, partial decodes whose
// byte ranges the plugin reads through the host, and corrupt input.
func TestCodecConformanceInProcess(t *testing.T) {
	c := inProcess(t, Extensions{Codecs: []codec.Registration{
		codecExtension("test.frame", frame{}), codecExtension("test.raw", raw{}), codecExtension("test.neg", neg{}),
	}})
	u8 := codectest.Named("uint8")
	codectest.Run(t, c.Resolver(), []codectest.Case{
		{Name: "test.frame", Detects: true},
		{Name: "test.raw", Specs: codectest.Specs(u8, []int{0}, []int{7}, []int{3, 5})},
		{Name: "test.neg", Specs: codectest.Specs(u8, []int{4}, []int{2, 3})},
	})
}

// The partial decode a codec offers survives the protocol, and one it
// does not offer is not claimed: the suite's Partial check runs only on
// codecs that claim it, so a codec that lost it would pass unchecked.
func TestCodecPartialInProcess(t *testing.T) {
	c := inProcess(t, Extensions{Codecs: []codec.Registration{codecExtension("test.frame", frame{}), codecExtension("test.raw", raw{})}})
	for name, want := range map[string]bool{"test.raw": true, "test.frame": false} {
		built, err := c.Codec(t.Context(), name, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, got := built.(codec.PartialDecoder); got != want {
			t.Errorf("remote %s is a PartialDecoder: %v, want %v", name, got, want)
		}
	}
}

func codecExtension(name string, c codec.Codec) codec.Registration {
	return codec.Registration{
		Manifest: extension.Manifest{Kind: extension.Codec, Name: name},
		New:      func(context.Context, json.RawMessage, codec.Resolver) (codec.Codec, error) { return c, nil },
	}
}

func corrupt(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{codec.ErrCorrupt}, args...)...)
}

// frame is a bytes->bytes codec: the bytes, then their CRC-32.
type frame struct{}

func (frame) Name() string                   { return "test.frame" }
func (frame) Configuration() json.RawMessage { return nil }

func (frame) EncodeBytes(_ context.Context, _ codec.Spec, b []byte) ([]byte, error) {
	return binary.LittleEndian.AppendUint32(slices.Clone(b), crc32.ChecksumIEEE(b)), nil
}

func (frame) DecodeBytes(_ context.Context, _ codec.Spec, b []byte) ([]byte, error) {
	if len(b) < 4 {
		return nil, corrupt("%d bytes hold no checksum", len(b))
	}
	data, sum := b[:len(b)-4], binary.LittleEndian.Uint32(b[len(b)-4:])
	if crc32.ChecksumIEEE(data) != sum {
		return nil, corrupt("checksum mismatch")
	}
	return data, nil
}

func (frame) EncodedSize(_ context.Context, _ codec.Spec, n int64) (int64, bool) { return n + 4, true }

// raw is an array->bytes codec of uint8 arrays, their bytes in C order,
// with partial decodes.
type raw struct{}

func (raw) Name() string                   { return "test.raw" }
func (raw) Configuration() json.RawMessage { return nil }

func (raw) Encode(_ context.Context, _ codec.Spec, a *ndarray.Array) ([]byte, error) {
	return slices.Clone(a.Data), nil
}

func (raw) Decode(_ context.Context, in codec.Spec, b []byte) (*ndarray.Array, error) {
	if n := ndarray.NumElements(in.Shape); len(b) != n {
		return nil, corrupt("%d bytes for %d elements", len(b), n)
	}
	a := ndarray.New(in.DataType, in.Shape)
	copy(a.Data, b)
	return a, nil
}

func (r raw) DecodeRegion(ctx context.Context, in codec.Spec, src codec.RangeReader, region []grid.Span) (*ndarray.Array, error) {
	return codectest.RegionOfWhole(ctx, in, src, region, r.Decode)
}

// neg is an array->array codec of uint8 arrays: each element negated.
type neg struct{}

func (neg) Name() string                                                    { return "test.neg" }
func (neg) Configuration() json.RawMessage                                  { return nil }
func (neg) OutputSpec(_ context.Context, in codec.Spec) (codec.Spec, error) { return in, nil }

func (n neg) EncodeArray(_ context.Context, in codec.Spec, a *ndarray.Array) (*ndarray.Array, error) {
	return n.flip(in, a)
}

func (n neg) DecodeArray(_ context.Context, in codec.Spec, a *ndarray.Array) (*ndarray.Array, error) {
	return n.flip(in, a)
}

func (neg) flip(in codec.Spec, a *ndarray.Array) (*ndarray.Array, error) {
	if ndarray.NumElements(a.Shape) != ndarray.NumElements(in.Shape) {
		return nil, corrupt("array %v for a chunk of %v", a.Shape, in.Shape)
	}
	out := &ndarray.Array{DType: a.DType, Shape: slices.Clone(a.Shape), Data: make([]byte, len(a.Data))}
	for i, v := range a.Data {
		out.Data[i] = -v
	}
	return out, nil
}
