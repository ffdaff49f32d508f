package codectest

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/zarrgw/zarrgw/core/codec"
)

// CheckCompressor runs the checks every compressing bytes->bytes codec
// must pass: round trips of empty, tiny, random and compressible inputs,
// truncated input, and random corruption (never a panic; errors wrap
// codec.ErrCorrupt; with checked set, corruption must never decode to
// wrong bytes silently).
func CheckCompressor(t *testing.T, c codec.BytesBytes, checked bool) {
	t.Helper()
	rng := rand.New(rand.NewPCG(11, 12))
	for _, n := range []int{0, 1, 2, 100, 4096, 70000} {
		for _, comp := range []bool{false, true} {
			RoundTripBytes(t, c, Bytes(rng, n, comp))
		}
	}
	data := Bytes(rng, 8000, true)
	enc := RoundTripBytes(t, c, data)
	Truncations(t, c, enc, data)
	for range 100 {
		bad := bytes.Clone(enc)
		bad[rng.IntN(len(bad))] ^= byte(1 + rng.IntN(255))
		for _, spec := range []codec.Spec{BytesSpec(int64(len(data)), int64(len(data))), BytesSpec(-1, int64(len(data)))} {
			out, err := DecodeNoPanic(t, c, spec, bad)
			if err != nil {
				MustCorrupt(t, err, c.Name()+" corrupted input")
			} else if checked && !bytes.Equal(out, data) {
				t.Fatalf("%s: corruption decoded to wrong data without an error", c.Name())
			}
		}
	}
	for _, in := range [][]byte{nil, {0}, []byte("definitely not compressed data")} {
		if _, err := DecodeNoPanic(t, c, BytesSpec(-1, 1000), in); err != nil {
			MustCorrupt(t, err, c.Name()+" garbage")
		}
	}
}

// CheckBomb decodes bomb (which expands to far more than limit bytes) with
// limit as the bound and as the exact size: both must fail with
// codec.ErrCorrupt and allocate no more than a few times the limit.
func CheckBomb(t *testing.T, c codec.BytesBytes, bomb []byte, limit int64) {
	t.Helper()
	for _, spec := range []codec.Spec{BytesSpec(-1, limit), BytesSpec(limit, limit)} {
		MaxAlloc(t, uint64(4*limit+(4<<20)), func() {
			_, err := DecodeNoPanic(t, c, spec, bomb)
			MustCorrupt(t, err, c.Name()+" bomb")
		})
	}
}
