package codectest_test

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/codec/codectest"
	"github.com/zarrgw/zarrgw/core/extension"
	"github.com/zarrgw/zarrgw/core/grid"
	"github.com/zarrgw/zarrgw/core/ndarray"
)

// Three small codecs, one of each kind, pass the suite; each mutant breaks
// one of them in one way, and names the checks that must catch it. The
// suite runs on each in a child process (a failing suite fails its test)
// and must report exactly those failures, as storetest's mutants do.
var mutants = map[string][]string{
	"none":            nil,
	"truncatesOutput": {"test.frame/RoundTrip"},
	"modifiesInput":   {"test.frame/RoundTrip"},
	"wrongSize":       {"test.frame/Sizes"},
	"panicsOnShort":   {"test.frame/Corrupt"},
	"plainErrors":     {"test.frame/Corrupt", "test.neg/Corrupt", "test.raw#01/Corrupt", "test.raw/Corrupt"},
	"noChecksum":      {"test.frame/Corrupt"},
	"unstableConfig":  {"test.frame/Build"},
	"wrongRegion":     {"test.raw#01/Partial", "test.raw/Partial"},
	"regionFound":     {"test.raw#01/Partial", "test.raw/Partial"},
	"shapeUnchecked":  {"test.neg/Corrupt"},
	"rawIgnoresSize":  {"test.raw#01/Corrupt", "test.raw/Corrupt"},
}

const envMutant = "CODECTEST_MUTANT"

var mutant = os.Getenv(envMutant)

func TestSuiteCatchesMutants(t *testing.T) {
	for name, want := range mutants {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestMutantChild$", "-test.v", "-test.count=1")
			cmd.Env = append(os.Environ(), envMutant+"="+name)
			out, err := cmd.CombinedOutput()
			got := failedChecks(string(out))
			slices.Sort(got)
			if (err == nil) != (len(got) == 0) || !slices.Equal(got, want) {
				t.Fatalf("suite on mutant %s: exit %v, failed checks %q, want %q\n%s", name, err, got, want, out)
			}
		})
	}
}

// failedChecks lists the CASE/CHECK subtests that failed.
func failedChecks(out string) []string {
	var failed []string
	for line := range strings.Lines(out) {
		if _, name, ok := strings.Cut(strings.TrimSpace(line), "--- FAIL: TestMutantChild/"); ok {
			if name = strings.Fields(name)[0]; strings.Contains(name, "/") {
				failed = append(failed, name)
			}
		}
	}
	return failed
}

// TestMutantChild runs the suite on the mutant the parent names; run on
// its own it runs it on the test codecs unbroken, which must pass.
func TestMutantChild(t *testing.T) {
	if _, ok := mutants[mutant]; !ok && mutant != "" {
		t.Fatalf("unknown mutant %q", mutant)
	}
	u8 := codectest.Named("uint8")
	codectest.Run(t, registry(), []codectest.Case{
		{Name: "test.frame", Detects: true},
		{Name: "test.raw", Specs: codectest.Specs(u8, []int{0}, []int{7}, []int{3, 5})},
		// Unframed tolerates a prefix that decodes to the same chunk,
		// never one that decodes to another (rawIgnoresSize).
		{Name: "test.raw", Specs: codectest.Specs(u8, []int{7}, []int{3, 5}), Unframed: true},
		{Name: "test.neg", Specs: codectest.Specs(u8, []int{4}, []int{2, 3})},
	})
}

func registry() *codec.Registry {
	reg := func(name string, c codec.Codec) codec.Registration {
		return codec.Registration{
			Manifest: extension.Manifest{Kind: extension.Codec, Name: name},
			New: func(_ context.Context, cfg json.RawMessage, _ codec.Resolver) (codec.Codec, error) {
				if mutant == "unstableConfig" && name == "test.frame" && len(cfg) > 0 {
					return nil, errors.New("test.frame takes no configuration")
				}
				return c, nil
			},
		}
	}
	return codec.NewRegistry(reg("test.frame", frame{}), reg("test.raw", raw{}), reg("test.neg", neg{}))
}

// frame is a bytes->bytes codec: the bytes, then their CRC-32.
type frame struct{}

func (frame) Name() string { return "test.frame" }

func (frame) Configuration() json.RawMessage {
	if mutant == "unstableConfig" {
		return json.RawMessage(`{"version":2}`)
	}
	return nil
}

func (frame) EncodeBytes(_ context.Context, _ codec.Spec, b []byte) ([]byte, error) {
	if mutant == "modifiesInput" && len(b) > 0 {
		b[0] ^= 1
	}
	return binary.LittleEndian.AppendUint32(append([]byte(nil), b...), crc32.ChecksumIEEE(b)), nil
}

func (frame) DecodeBytes(_ context.Context, _ codec.Spec, b []byte) ([]byte, error) {
	if len(b) < 4 && mutant != "panicsOnShort" {
		return nil, corrupt("%d bytes hold no checksum", len(b))
	}
	data, sum := b[:len(b)-4], binary.LittleEndian.Uint32(b[len(b)-4:])
	if crc32.ChecksumIEEE(data) != sum && mutant != "noChecksum" {
		return nil, corrupt("checksum mismatch")
	}
	if mutant == "truncatesOutput" && len(data) > 0 {
		data = data[:len(data)-1]
	}
	return data, nil
}

func (frame) EncodedSize(_ context.Context, _ codec.Spec, n int64) (int64, bool) {
	if mutant == "wrongSize" {
		return n + 5, true
	}
	return n + 4, true
}

func corrupt(format string, args ...any) error {
	if mutant == "plainErrors" {
		return fmt.Errorf(format, args...)
	}
	return fmt.Errorf("%w: "+format, append([]any{codec.ErrCorrupt}, args...)...)
}

// raw is an array->bytes codec of uint8 arrays, their bytes in C order,
// with partial decodes.
type raw struct{}

func (raw) Name() string                   { return "test.raw" }
func (raw) Configuration() json.RawMessage { return nil }

func (raw) Encode(_ context.Context, _ codec.Spec, a *ndarray.Array) ([]byte, error) {
	return append([]byte(nil), a.Data...), nil
}

func (raw) Decode(_ context.Context, in codec.Spec, b []byte) (*ndarray.Array, error) {
	if n := ndarray.NumElements(in.Shape); len(b) != n && mutant != "rawIgnoresSize" {
		return nil, corrupt("%d bytes for %d elements", len(b), n)
	}
	a := ndarray.New(in.DataType, in.Shape)
	copy(a.Data, b)
	return a, nil
}

func (r raw) DecodeRegion(ctx context.Context, in codec.Spec, src codec.RangeReader, region []grid.Span) (*ndarray.Array, error) {
	if mutant == "regionFound" {
		src = &codectest.Ranges{Data: make([]byte, ndarray.NumElements(in.Shape))}
	}
	out, err := codectest.RegionOfWhole(ctx, in, src, region, r.Decode)
	if err != nil {
		return nil, err
	}
	if mutant == "wrongRegion" && len(out.Data) > 0 {
		out.Data[0]++
	}
	return out, nil
}

// neg is an array->array codec of uint8 arrays: each element negated.
type neg struct{}

func (neg) Name() string                                                    { return "test.neg" }
func (neg) Configuration() json.RawMessage                                  { return nil }
func (neg) OutputSpec(_ context.Context, in codec.Spec) (codec.Spec, error) { return in, nil }
func (n neg) EncodeArray(_ context.Context, in codec.Spec, a *ndarray.Array) (*ndarray.Array, error) {
	return n.flip(in, a, true)
}

func (n neg) DecodeArray(_ context.Context, in codec.Spec, a *ndarray.Array) (*ndarray.Array, error) {
	return n.flip(in, a, mutant == "shapeUnchecked")
}

func (neg) flip(in codec.Spec, a *ndarray.Array, trusted bool) (*ndarray.Array, error) {
	if !trusted && ndarray.NumElements(a.Shape) != ndarray.NumElements(in.Shape) {
		return nil, corrupt("array %v for a chunk of %v", a.Shape, in.Shape)
	}
	out := &ndarray.Array{DType: a.DType, Shape: slices.Clone(a.Shape), Data: make([]byte, len(a.Data))}
	for i, v := range a.Data {
		out.Data[i] = -v
	}
	return out, nil
}
