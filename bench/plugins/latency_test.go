package plugins

import (
	"context"
	"testing"

	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/dtype"
)

// BenchmarkCallLatency is the floor under every out-of-process call: one
// round trip with a 4-byte payload (a crc32c check).
func BenchmarkCallLatency(b *testing.B) {
	r, _ := outOfProcess(b)
	c, err := r.Codec(context.Background(), "crc32c", nil)
	if err != nil {
		b.Fatal(err)
	}
	bb := c.(codec.BytesBytes)
	spec := codec.Spec{DataType: dtype.Named("uint8"), Shape: []int{4}, DecodedSize: 4}
	enc, err := bb.EncodeBytes(context.Background(), spec, []byte("zarr"))
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := bb.DecodeBytes(context.Background(), spec, enc); err != nil {
			b.Fatal(err)
		}
	}
}
