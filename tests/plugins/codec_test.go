package plugins

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/dtype"
	"github.com/zarrgw/zarrgw/host/registry"
)

// A bundled codec out of process decodes a 256 MiB chunk (streamed back in
// frames) to what the in-process codec encoded, and a corrupt chunk fails
// with codec.ErrCorrupt on the host side of the boundary.
func TestCodecLargeDecodeAndCorrupt(t *testing.T) {
	l, _ := newLauncher(t)
	codecs, _, err := registry.OutOfProcess(l, zarrgwBin)
	if err != nil {
		t.Fatal(err)
	}
	config := json.RawMessage(`{"level":1,"checksum":false}`)
	local, err := registry.Codecs().Codec("zstd", config)
	if err != nil {
		t.Fatal(err)
	}
	remote, err := codecs.Codec("zstd", config)
	if err != nil {
		t.Fatal(err)
	}
	if remote.Name() != "zstd" || remote.Kind() != codec.BytesToBytes || string(remote.Configuration()) != string(local.Configuration()) {
		t.Fatalf("remote codec %s %v %s, local %s", remote.Name(), remote.Kind(), remote.Configuration(), local.Configuration())
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
