package crc32c

import (
	"encoding/binary"
	"encoding/hex"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/zarrgw/zarrgw/tests/support/fixtures"

	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/codec/codectest"
)

var newCodec = codectest.Builder[codec.BytesBytes](New)

// Check value from the digest (and the CRC catalogue): CRC-32C of
// "123456789" is 0xE3069283, stored as 83 92 06 e3.
func TestCheckValue(t *testing.T) {
	enc, err := newCodec(t, "").EncodeBytes(t.Context(), codectest.BytesSpec(9, 9), []byte("123456789"))
	if err != nil {
		t.Fatal(err)
	}
	if got := hex.EncodeToString(enc); got != hex.EncodeToString([]byte("123456789"))+"839206e3" {
		t.Errorf("encoded %s", got)
	}
	start, _ := newCodec(t, `{"location":"start"}`).EncodeBytes(t.Context(), codectest.BytesSpec(9, 9), []byte("123456789"))
	if got := hex.EncodeToString(start[:4]); got != "839206e3" {
		t.Errorf("location start: %s", got)
	}
}

func TestRegistration(t *testing.T) {
	if Registration.Manifest.Name != "crc32c" || Registration.Manifest.Aliases[0] != "numcodecs.crc32c" {
		t.Errorf("%+v", Registration)
	}
	if c := newCodec(t, `{"id":"crc32c"}`); c.Configuration() != nil || c.Name() != "crc32c" {
		t.Errorf("configuration %s", c.Configuration())
	}
}

func TestRoundTripAndMismatch(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	c := newCodec(t, "")
	for _, n := range []int{0, 1, 7, 1000, 65537} {
		enc := codectest.RoundTripBytes(t, c, codectest.Bytes(rng, n, false))
		bad := append([]byte(nil), enc...)
		bad[rng.IntN(len(bad))] ^= 0x10
		_, err := c.DecodeBytes(t.Context(), codectest.BytesSpec(int64(n), int64(n)), bad)
		codectest.MustCorrupt(t, err, "flipped bit")
		if !strings.Contains(err.Error(), "stored") || !strings.Contains(err.Error(), "computed") {
			t.Errorf("message lacks both values: %v", err)
		}
	}
	_, err := c.DecodeBytes(t.Context(), codectest.BytesSpec(-1, 0), []byte{1, 2})
	codectest.MustCorrupt(t, err, "short input")
}

// The index of a zarr-python shard ends with the CRC-32C of its 16*n
// bytes: decoding that tail verifies it.
func TestShardIndexFixture(t *testing.T) {
	shard := fixtures.Read(t, "zarrita-js/v3/data.zarr/2d.chunked.compressed.sharded.i2/c/0/0")
	const n = 4 // 2x2 inner chunks per shard
	tail := shard[len(shard)-16*n-4:]
	index, err := newCodec(t, "").DecodeBytes(t.Context(), codectest.BytesSpec(16*n, 16*n), tail)
	if err != nil {
		t.Fatal(err)
	}
	// offsets/lengths must describe data inside the shard
	for i := range n {
		off, size := binary.LittleEndian.Uint64(index[16*i:]), binary.LittleEndian.Uint64(index[16*i+8:])
		if off+size > uint64(len(shard)) {
			t.Errorf("entry %d: %d+%d beyond %d", i, off, size, len(shard))
		}
	}
}
