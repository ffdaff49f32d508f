package fletcher32

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/zarrgw/zarrgw/tests/support/fixtures/fixturecheck"

	"github.com/zarrgw/zarrgw/core/codec/codectest"
	"github.com/zarrgw/zarrgw/core/dtype"
)

// Worked by hand from the algorithm: 01 02 03 is the word 0x0102 and an
// odd byte 0x03 taken as 0x0300; sum1 = 0x0402, sum2 = 0x0102 + 0x0402.
func TestKnownValues(t *testing.T) {
	cases := map[string]uint32{"": 0, "0102": 0x01020102, "010203": 0x05040402, "ffff": 0xffffffff}
	for in, want := range cases {
		b, _ := hex.DecodeString(in)
		if got := Sum(b); got != want {
			t.Errorf("Sum(%s) = %#08x, want %#08x", in, got, want)
		}
	}
	enc, _ := (&Codec{}).EncodeBytes(t.Context(), codectest.BytesSpec(3, 3), []byte{1, 2, 3})
	if got := hex.EncodeToString(enc); got != "010203"+"02040405" {
		t.Errorf("encoded %s", got)
	}
}

// Long inputs pass the 360-word folding; compare with the textbook
// definition (sums modulo 65535, with 0 kept as 0xffff only when the
// HDF5 folding leaves it so, which random data does not hit).
func TestFoldingMatchesModulo(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{718, 719, 720, 721, 10000, 65537} {
		b := codectest.Bytes(rng, n, false)
		var s1, s2 uint64
		for i := 0; i < n; i += 2 {
			w := uint64(b[i]) << 8
			if i+1 < n {
				w |= uint64(b[i+1])
			}
			s1 = (s1 + w) % 0xffff
			s2 = (s2 + s1) % 0xffff
		}
		got := Sum(b)
		g1, g2 := uint64(got&0xffff)%0xffff, uint64(got>>16)%0xffff
		if g1 != s1 || g2 != s2 {
			t.Errorf("n=%d: %#08x, modulo sums %#04x %#04x", n, got, s2, s1)
		}
	}
}

func TestRoundTripAndMismatch(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	c := &Codec{}
	for _, n := range []int{0, 1, 2, 3, 1000, 4097} {
		enc := codectest.RoundTripBytes(t, c, codectest.Bytes(rng, n, false))
		bad := bytes.Clone(enc)
		bad[rng.IntN(len(bad))] ^= 0x40
		_, err := c.DecodeBytes(t.Context(), codectest.BytesSpec(int64(n), int64(n)), bad)
		codectest.MustCorrupt(t, err, "flipped bit")
	}
	_, err := c.DecodeBytes(t.Context(), codectest.BytesSpec(-1, 0), []byte{1, 2, 3})
	codectest.MustCorrupt(t, err, "short")
	if Registration.Manifest.Name != "numcodecs.fletcher32" {
		t.Error("name")
	}
}

// zarr-python wrote these with numcodecs fletcher32: a v2 uint16 array
// (fletcher32 as compressor) and a v3 float32 array.
func TestFixtures(t *testing.T) {
	c := &Codec{}
	for _, idx := range [][]int{{0, 0}, {0, 1}, {1, 0}, {1, 1}} {
		fixturecheck.CheckArangeChunk(t, c, "zarrs/zarr_python_compat/fletcher32.zarr", fmt.Sprintf("%d.%d", idx[0], idx[1]),
			dtype.Named("uint16"), []int{50, 50}, idx)
		fixturecheck.CheckArangeChunk(t, c, "zarrs/v3_zarr_python/array_fletcher32.zarr", fmt.Sprintf("c/%d/%d", idx[0], idx[1]),
			dtype.Named("float32"), []int{5, 5}, idx)
	}
}
