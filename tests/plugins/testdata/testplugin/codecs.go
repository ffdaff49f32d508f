package main

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/extension"
	"github.com/zarrgw/zarrgw/pluginapi"
)

// gate is an identity bytes->bytes codec. While the file "gate" exists in
// $ZARRGW_TEST_DIR, a decode writes the plugin's PID to "decoding" there
// and waits, so a test can kill the plugin in the middle of a decode.
type gate struct{}

func (gate) Name() string                   { return "test.gate" }
func (gate) Configuration() json.RawMessage { return nil }

func (gate) EncodeBytes(_ context.Context, _ codec.Spec, b []byte) ([]byte, error) {
	return append([]byte(nil), b...), nil
}

func (gate) DecodeBytes(_ context.Context, _ codec.Spec, b []byte) ([]byte, error) {
	dir := os.Getenv("ZARRGW_TEST_DIR")
	if _, err := os.Stat(filepath.Join(dir, "gate")); dir != "" && err == nil {
		pid := []byte(strconv.Itoa(os.Getpid()))
		if err := os.WriteFile(filepath.Join(dir, "decoding"), pid, 0o644); err != nil {
			return nil, err
		}
		for {
			time.Sleep(time.Hour) // until killed
		}
	}
	return append([]byte(nil), b...), nil
}

// hang is a bytes->bytes codec whose decode never returns and ignores its
// context, as a deadlocked plugin would.
type hang struct{ gate }

func (hang) Name() string { return "test.hang" }

func (hang) DecodeBytes(context.Context, codec.Spec, []byte) ([]byte, error) {
	select {}
}

// crashOnce is an identity bytes->bytes codec whose first decode panics:
// it leaves the file "crashed" in $ZARRGW_TEST_DIR, so the process that
// replaces the crashed one decodes normally.
type crashOnce struct{ gate }

func (crashOnce) Name() string { return "test.crashonce" }

func (crashOnce) DecodeBytes(_ context.Context, _ codec.Spec, b []byte) ([]byte, error) {
	marker := filepath.Join(os.Getenv("ZARRGW_TEST_DIR"), "crashed")
	if _, err := os.Stat(marker); errors.Is(err, os.ErrNotExist) {
		if err := os.WriteFile(marker, nil, 0o644); err != nil {
			return nil, err
		}
		panic("crash-once: the first decode fails")
	}
	return append([]byte(nil), b...), nil
}

func serveCodecs() {
	pluginapi.Logger().Info("test codecs starting", "pid", os.Getpid())
	pluginapi.ServeCodec(
		codec.Registration{
			Manifest: extension.Manifest{Kind: extension.Codec, Name: "test.gate", Version: "0.1.0",
				ConfigSchema: json.RawMessage(`{"type":"object","properties":{"level":{"type":"integer","minimum":1}}}`)},
			New: func(context.Context, json.RawMessage, codec.Resolver) (codec.Codec, error) { return gate{}, nil },
		},
		codec.Registration{
			Manifest: extension.Manifest{Kind: extension.Codec, Name: "test.hang"},
			New:      func(context.Context, json.RawMessage, codec.Resolver) (codec.Codec, error) { return hang{}, nil },
		},
		codec.Registration{
			Manifest: extension.Manifest{Kind: extension.Codec, Name: "test.crashonce"},
			New:      func(context.Context, json.RawMessage, codec.Resolver) (codec.Codec, error) { return crashOnce{}, nil },
		},
	)
}
