package plugins

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/dtype"
	"github.com/zarrgw/zarrgw/core/extension"
	"github.com/zarrgw/zarrgw/pluginapi"
)

// A plugin reports its manifests, validates configurations with field
// paths, and runs its codecs; its log lines reach the host's log under its
// name.
func TestInfoValidateAndLogs(t *testing.T) {
	l, logs := newLauncher(t)
	p := addPlugin(t, l, "example.org/test/codecs", testPluginBin, nil, "codec")
	ctx := context.Background()
	ms, err := p.Manifests(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != 3 || ms[0].Name != "test.gate" || ms[0].Kind != extension.Codec || ms[0].Version != "0.1.0" || len(ms[0].ConfigSchema) == 0 {
		t.Fatalf("manifests %+v", ms)
	}
	fields, err := p.Client().Validate(ctx, extension.Codec, "test.gate", json.RawMessage(`{"level":0}`))
	if err != nil {
		t.Fatal(err)
	}
	if len(fields) != 1 || fields[0].Path != "/level" || !strings.Contains(fields[0].Message, "at least 1") {
		t.Fatalf("field errors %+v", fields)
	}
	if fields, err = p.Client().Validate(ctx, extension.Codec, "test.gate", json.RawMessage(`{"level":3}`)); err != nil || len(fields) != 0 {
		t.Fatalf("valid configuration: %v %v", fields, err)
	}
	log := logs.String()
	if !strings.Contains(log, "test codecs starting") || !strings.Contains(log, `"plugin":"example.org/test/codecs"`) {
		t.Errorf("plugin log line not in the host log under the plugin's name:\n%s", tail(log, 20))
	}
}

// A codec that the plugin does not serve is codec.ErrUnavailable on the
// host, and the error names the plugin.
func TestUnknownCodec(t *testing.T) {
	l, _ := newLauncher(t)
	p := addPlugin(t, l, "example.org/test/codecs", testPluginBin, nil, "codec")
	_, err := p.Codec(context.Background(), "no-such-codec", nil)
	if !errors.Is(err, codec.ErrUnavailable) || !strings.Contains(err.Error(), "example.org/test/codecs") {
		t.Fatalf("got %v", err)
	}
}

// A payload far above gRPC's 4 MiB message limit decodes through a plugin
// both ways (it streams in frames).
func TestLargeCodecPayload(t *testing.T) {
	l, _ := newLauncher(t)
	p := addPlugin(t, l, "example.org/test/codecs", testPluginBin, nil, "codec")
	c, err := p.Codec(context.Background(), "test.gate", nil)
	if err != nil {
		t.Fatal(err)
	}
	bb := c.(codec.BytesBytes)
	in := make([]byte, 64<<20+3)
	for i := range in {
		in[i] = byte(i * 7)
	}
	spec := codec.Spec{DataType: dtype.Named("uint8"), Shape: []int{len(in)}, DecodedSize: int64(len(in))}
	enc, err := bb.EncodeBytes(context.Background(), spec, in)
	if err != nil {
		t.Fatal(err)
	}
	dec, err := bb.DecodeBytes(context.Background(), spec, enc)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(dec, in) {
		t.Fatal("round trip changed the payload")
	}
	var _ = pluginapi.FrameSize
}
