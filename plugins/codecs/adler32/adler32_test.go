package adler32

import (
	"encoding/hex"
	"math/rand/v2"
	"testing"

	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/codec/codectest"
)

var newCodec = codectest.Builder[codec.BytesBytes](New)

// Adler-32 of "123456789" is 0x091E01DE (RFC 1950 algorithm, worked by
// hand: A = 1+sum = 478 = 0x1de, B = 2334 = 0x91e); numcodecs prepends it.
func TestCheckValue(t *testing.T) {
	enc, _ := newCodec(t, "").EncodeBytes(t.Context(), codectest.BytesSpec(9, 9), []byte("123456789"))
	if got := hex.EncodeToString(enc); got != "de011e09"+hex.EncodeToString([]byte("123456789")) {
		t.Errorf("encoded %s", got)
	}
	if Registration.Manifest.Name != "numcodecs.adler32" {
		t.Error("name")
	}
}

func TestRoundTripAndMismatch(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	c := newCodec(t, `{"location":"end"}`)
	enc := codectest.RoundTripBytes(t, c, codectest.Bytes(rng, 5000, true))
	enc[len(enc)-1] ^= 1
	_, err := c.DecodeBytes(t.Context(), codectest.BytesSpec(-1, 0), enc)
	codectest.MustCorrupt(t, err, "mismatch")
}
