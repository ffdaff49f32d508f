package sharding_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/codec/codectest"
	"github.com/zarrgw/zarrgw/core/dtype"
	"github.com/zarrgw/zarrgw/plugins/builtin"
	"github.com/zarrgw/zarrgw/plugins/codecs/sharding"
)

var ctx = context.Background()

const crcIndex = `[{"name":"bytes","configuration":{"endian":"little"}},{"name":"crc32c"}]`

func newCodec(t testing.TB, cfg string) *sharding.Codec {
	t.Helper()
	return newCodecWith(t, cfg, sharding.Options{})
}

func newCodecWith(t testing.TB, cfg string, opts sharding.Options) *sharding.Codec {
	t.Helper()
	c, err := sharding.NewWith(context.Background(), json.RawMessage(cfg), builtin.Registry(), opts)
	if err != nil {
		t.Fatalf("NewWith(context.Background(), %s): %v", cfg, err)
	}
	return c
}

func config(inner []int, codecs, index, location string) string {
	s := fmt.Sprintf(`{"chunk_shape":%s,"codecs":%s`, ints(inner), codecs)
	if index != "" {
		s += `,"index_codecs":` + index
	}
	if location != "" {
		s += fmt.Sprintf(`,"index_location":%q`, location)
	}
	return s + "}"
}

func ints(v []int) string { b, _ := json.Marshal(v); return string(b) }

func spec(dt string, shape []int, fill []byte) codec.Spec {
	return codec.Spec{DataType: dtype.Named(dt), Shape: shape, FillValue: fill, DecodedSize: -1}
}

// memReader serves ranges of one shard and counts requests.
type memReader = codectest.Ranges
