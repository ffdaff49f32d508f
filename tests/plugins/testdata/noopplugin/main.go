// Command noopplugin serves bench.noop, a bytes->bytes codec whose encode
// and decode return their input: what a call costs with no codec work in
// it, the Go side of BenchmarkNoopCodec (python_bench_test.go has the
// Python twin).
package main

import (
	"context"
	"encoding/json"

	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/extension"
	"github.com/zarrgw/zarrgw/pluginapi"
)

type noop struct{}

func (noop) Name() string                   { return "bench.noop" }
func (noop) Configuration() json.RawMessage { return nil }

// The input is returned as it is, as the Python codec does: the SDK
// copies it out (into the host's shared memory or a response) before the
// buffer is reused.
func (noop) EncodeBytes(_ context.Context, _ codec.Spec, b []byte) ([]byte, error) { return b, nil }
func (noop) DecodeBytes(_ context.Context, _ codec.Spec, b []byte) ([]byte, error) { return b, nil }

func main() {
	pluginapi.ServeCodec(codec.Registration{
		Manifest: extension.Manifest{Kind: extension.Codec, Name: "bench.noop", Version: "0.1.0"},
		New:      func(context.Context, json.RawMessage, codec.Resolver) (codec.Codec, error) { return noop{}, nil },
	})
}
