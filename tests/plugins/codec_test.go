package plugins

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/codec/codectest"
	"github.com/zarrgw/zarrgw/core/dtype"
	"github.com/zarrgw/zarrgw/host/runtime/registry"
	"github.com/zarrgw/zarrgw/plugins/builtin/builtintest"
)

// A bundled codec out of process decodes a 256 MiB chunk (streamed back in
// frames) to what the in-process codec encoded, and a corrupt chunk fails
// with codec.ErrCorrupt on the host side of the boundary.
func TestCodecLargeDecodeAndCorrupt(t *testing.T) {
	l, _ := newLauncher(t)
	parts, err := registry.Bundled().OutOfProcess(l, zarrgwBin)
	if err != nil {
		t.Fatal(err)
	}
	codecs := parts.Codecs()
	config := json.RawMessage(`{"level":1,"checksum":false}`)
	local, err := registry.Codecs().Codec(context.Background(), "zstd", config)
	if err != nil {
		t.Fatal(err)
	}
	remote, err := codecs.Codec(context.Background(), "zstd", config)
	if err != nil {
		t.Fatal(err)
	}
	if remote.Name() != "zstd" || codec.KindOf(remote) != codec.BytesToBytes || string(remote.Configuration()) != string(local.Configuration()) {
		t.Fatalf("remote codec %s %v %s, local %s", remote.Name(), codec.KindOf(remote), remote.Configuration(), local.Configuration())
	}
	raw := make([]byte, 256<<20)
	for i := range raw {
		raw[i] = byte(i % 251)
	}
	spec := codec.Spec{DataType: dtype.Named("uint8"), Shape: []int{len(raw)}, DecodedSize: int64(len(raw))}
	ctx := context.Background()
	enc, err := local.(codec.BytesBytes).EncodeBytes(ctx, spec, raw)
	if err != nil {
		t.Fatal(err)
	}
	dec, err := remote.(codec.BytesBytes).DecodeBytes(ctx, spec, enc)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(dec, raw) {
		t.Fatalf("decoded %d bytes differ from the %d encoded", len(dec), len(raw))
	}
	_, err = remote.(codec.BytesBytes).DecodeBytes(ctx, spec, enc[:len(enc)/2])
	if !errors.Is(err, codec.ErrCorrupt) {
		t.Fatalf("truncated chunk: %v, want ErrCorrupt", err)
	}
}

// A remote bytes->bytes codec decodes into the caller's buffer, whether the
// output comes through shared memory (1 MiB) or in frames (64 MiB), and a
// buffer of the wrong size is ErrCorrupt.
func TestCodecDecodeInto(t *testing.T) {
	l, _ := newLauncher(t)
	parts, err := registry.Bundled().OutOfProcess(l, zarrgwBin)
	if err != nil {
		t.Fatal(err)
	}
	codecs := parts.Codecs()
	local, _ := registry.Codecs().Codec(context.Background(), "zstd", nil)
	remote, err := codecs.Codec(context.Background(), "zstd", nil)
	if err != nil {
		t.Fatal(err)
	}
	into, ok := remote.(codec.DecoderInto)
	if !ok {
		t.Fatal("remote zstd does not decode into buffers")
	}
	ctx := context.Background()
	for _, n := range []int{1 << 20, 64 << 20} {
		raw := make([]byte, n)
		for i := range raw {
			raw[i] = byte(i / 1000)
		}
		spec := codec.Spec{DataType: dtype.Named("uint8"), Shape: []int{n}, DecodedSize: int64(n)}
		enc, err := local.(codec.BytesBytes).EncodeBytes(ctx, spec, raw)
		if err != nil {
			t.Fatal(err)
		}
		dst := make([]byte, n)
		if err := into.DecodeBytesInto(ctx, spec, enc, dst); err != nil || !bytes.Equal(dst, raw) {
			t.Fatalf("%d bytes: %v", n, err)
		}
		short := spec
		short.DecodedSize, short.Shape = int64(n-1), []int{n - 1}
		if err := into.DecodeBytesInto(ctx, short, enc, make([]byte, n-1)); !errors.Is(err, codec.ErrCorrupt) {
			t.Fatalf("%d bytes into %d: %v", n, n-1, err)
		}
	}
}

// Every bundled codec passes the codec conformance suite out of process,
// each in its plugin (zarrgw plugin serve NAME), and the example external
// codec through its own binary.
func TestCodecConformanceOutOfProcess(t *testing.T) {
	l, _ := newLauncher(t)
	parts, err := registry.Bundled().OutOfProcess(l, zarrgwBin)
	if err != nil {
		t.Fatal(err)
	}
	t.Run("bundled", func(t *testing.T) { codectest.Run(t, remoteOnly{parts.Codecs()}, builtintest.Cases()) })
	addPlugin(t, l, "example.org/acme/bitshave", bitshaveBin, nil)
	t.Run("bitshave", func(t *testing.T) {
		codectest.Run(t, remoteOnly{registry.Bundled().InProcess().WithPlugins(l).Codecs()}, []codectest.Case{{
			Name: "bitshave", Configuration: json.RawMessage(`{"keepbits":3}`),
			Specs: codectest.Specs(codectest.Named("float32", "float64"), []int{0}, []int{9}, []int{3, 4}),
			Lossy: true, Values: codectest.FiniteFloats,
		}})
	})
}

// remoteOnly refuses codecs that are not running in a plugin, so the
// suite cannot pass in process by mistake. Nested chains (sharding's inner
// codecs) run in the plugin beside the codec that holds them.
type remoteOnly struct{ r codec.Resolver }

func (r remoteOnly) Codec(ctx context.Context, name string, config json.RawMessage) (codec.Codec, error) {
	c, err := r.r.Codec(ctx, name, config)
	if err == nil && !strings.HasSuffix(reflect.TypeOf(c).Elem().PkgPath(), "/pluginapi") {
		return nil, fmt.Errorf("codec %s runs in process (%T)", name, c)
	}
	return c, err
}
