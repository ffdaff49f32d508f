package sharding_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/zarrgw/zarrgw/core/ndarray"
	"github.com/zarrgw/zarrgw/plugins/builtin"
	"github.com/zarrgw/zarrgw/plugins/codecs/sharding"
)

func TestConfigErrors(t *testing.T) {
	bytesChain := `[{"name":"bytes"}]`
	cases := map[string]string{
		"no configuration":   ``,
		"no chunk shape":     `{"codecs":[{"name":"bytes"}]}`,
		"zero extent":        config([]int{0}, bytesChain, crcIndex, ""),
		"no codecs":          `{"chunk_shape":[2],"codecs":[]}`,
		"bad location":       config([]int{2}, bytesChain, crcIndex, "middle"),
		"unknown codec":      config([]int{2}, `[{"name":"nope"}]`, crcIndex, ""),
		"compressed index":   config([]int{2}, bytesChain, `[{"name":"bytes"},{"name":"gzip","configuration":{"level":1}}]`, ""),
		"not json":           `{"chunk_shape":`,
		"codec without name": config([]int{2}, `[{"configuration":{}}]`, crcIndex, ""),
	}
	for name, cfg := range cases {
		if _, err := sharding.New(context.Background(), json.RawMessage(cfg), builtin.Registry()); err == nil {
			t.Errorf("%s: accepted %s", name, cfg)
		}
	}
	// Shapes are checked against the shard when it is known.
	cd := newCodec(t, config([]int{3}, bytesChain, crcIndex, ""))
	a := byteArray(1, 2, 3, 4)
	if _, err := cd.Encode(ctx, spec("uint8", []int{4}, nil), a); err == nil || !strings.Contains(err.Error(), "divide") {
		t.Errorf("inner [3] in shard [4]: %v", err)
	}
	cd = newCodec(t, config([]int{2, 2}, bytesChain, crcIndex, ""))
	if _, err := cd.Decode(ctx, spec("uint8", []int{4}, nil), nil); err == nil || !strings.Contains(err.Error(), "rank") {
		t.Errorf("rank mismatch: %v", err)
	}
}

func TestConfigurationRoundTrip(t *testing.T) {
	in := config([]int{2, 2}, `[{"name":"bytes","configuration":{"endian":"little"}},"crc32c"]`, crcIndex, "")
	cd := newCodec(t, in)
	var got map[string]any
	if err := json.Unmarshal(cd.Configuration(), &got); err != nil {
		t.Fatal(err)
	}
	if got["index_location"] != "end" || len(got["codecs"].([]any)) != 2 || len(got["index_codecs"].([]any)) != 2 {
		t.Fatalf("Configuration() = %s", cd.Configuration())
	}
	again := newCodec(t, string(cd.Configuration()))
	a := &ndarray.Array{DType: spec("int16", nil, nil).DataType, Shape: []int{4, 4}, Data: make([]byte, 32)}
	a.Data[3] = 7
	b1, err1 := cd.Encode(ctx, spec("int16", []int{4, 4}, []byte{0, 0}), a)
	b2, err2 := again.Encode(ctx, spec("int16", []int{4, 4}, []byte{0, 0}), a)
	if err1 != nil || err2 != nil || string(b1) != string(b2) {
		t.Fatalf("re-read configuration encodes differently (%v, %v)", err1, err2)
	}
}

func TestDescribe(t *testing.T) {
	cfg := config([]int{32, 32}, `[{"name":"bytes","configuration":{"endian":"little"}},{"name":"gzip","configuration":{"level":5}}]`, crcIndex, "")
	got, err := sharding.Describe(json.RawMessage(cfg), []int{64, 64})
	want := "shard [64 64], inner [32 32] ([2 2] per shard, 4 inner chunks), index end 68 bytes [bytes, crc32c], inner codecs [bytes, gzip]"
	if err != nil || got != want {
		t.Fatalf("Describe = %q (%v)\nwant %q", got, err, want)
	}
	got, err = sharding.Describe(json.RawMessage(config([]int{2}, `["bytes"]`, "", "start")), []int{8})
	if err != nil || !strings.Contains(got, "index start 68 bytes with a CRC-32C or 64 without") {
		t.Fatalf("Describe legacy = %q (%v)", got, err)
	}
	if _, err := sharding.Describe(json.RawMessage(cfg), []int{48, 64}); err == nil {
		t.Fatal("Describe accepted a shard the inner chunks do not divide")
	}
}
