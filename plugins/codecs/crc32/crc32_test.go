package crc32

import (
	"encoding/hex"
	"math/rand/v2"
	"testing"

	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/codec/codectest"
)

var newCodec = codectest.Builder[codec.BytesBytes](New)

// CRC-32 (zlib) check value of "123456789" is 0xCBF43926; numcodecs
// prepends it little-endian by default.
func TestCheckValue(t *testing.T) {
	ctx := t.Context()
	enc, _ := newCodec(t, `{"id":"crc32"}`).EncodeBytes(ctx, codectest.BytesSpec(9, 9), []byte("123456789"))
	if got := hex.EncodeToString(enc); got != "2639f4cb"+hex.EncodeToString([]byte("123456789")) {
		t.Errorf("encoded %s", got)
	}
	end, _ := newCodec(t, `{"location":"end"}`).EncodeBytes(ctx, codectest.BytesSpec(9, 9), []byte("123456789"))
	if got := hex.EncodeToString(end[9:]); got != "2639f4cb" {
		t.Errorf("location end: %s", got)
	}
	if Registration.Manifest.Name != "numcodecs.crc32" || newCodec(t, "").Name() != "numcodecs.crc32" {
		t.Error("name")
	}
}

func TestRoundTripAndMismatch(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	c := newCodec(t, "")
	enc := codectest.RoundTripBytes(t, c, codectest.Bytes(rng, 999, false))
	enc[0] ^= 1
	_, err := c.DecodeBytes(t.Context(), codectest.BytesSpec(-1, 0), enc)
	codectest.MustCorrupt(t, err, "mismatch")
}
