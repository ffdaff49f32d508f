package shuffle

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/zarrgw/zarrgw/tests/support/fixtures"

	"github.com/klauspost/compress/zlib"

	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/codec/codectest"
)

var newCodec = codectest.Builder[codec.BytesBytes](New)

// The digest's definition, on a buffer with a trailing partial element:
// elements (01 02 03) (04 05 06) + 07 with size 3 -> 01 04 02 05 03 06 07.
func TestKnownLayout(t *testing.T) {
	enc, err := newCodec(t, `{"elementsize":3}`).EncodeBytes(t.Context(), codectest.BytesSpec(7, 7), []byte{1, 2, 3, 4, 5, 6, 7})
	if want := []byte{1, 4, 2, 5, 3, 6, 7}; err != nil || !bytes.Equal(enc, want) {
		t.Fatalf("%x, want %x", enc, want)
	}
}

func TestRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, size := range []int{0, 1, 2, 3, 4, 8, 16} {
		c := newCodec(t, fmt.Sprintf(`{"elementsize":%d}`, size))
		for _, n := range []int{0, 1, 5, 64, 1001} {
			codectest.RoundTripBytes(t, c, codectest.Bytes(rng, n, false))
		}
	}
	_, err := newCodec(t, ``).DecodeBytes(t.Context(), codectest.BytesSpec(5, 5), make([]byte, 6))
	codectest.MustCorrupt(t, err, "wrong size")
}

func TestConfiguration(t *testing.T) {
	if got := string(newCodec(t, `{"id":"shuffle"}`).Configuration()); got != `{"elementsize":4}` {
		t.Errorf("default: %s", got)
	}
	codectest.CheckRefused(t, New, `{"elementsize":-2}`)
}

// zarr-python 2 wrote int16 [1,2,3,4] through Shuffle(2) and zlib; and
// [10,20,30,40] through Delta, Shuffle(2) and zlib.
func TestFixtures(t *testing.T) {
	unzlib := func(arr string) []byte {
		r, err := zlib.NewReader(bytes.NewReader(fixtures.Read(t, arr+"/0")))
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		out.ReadFrom(r)
		return out.Bytes()
	}
	c := newCodec(t, `{"elementsize":2}`)
	for arr, want := range map[string][]byte{
		"zarrita-js/v2/data.zarr/1d.contiguous.shuffle.i2":       {1, 0, 2, 0, 3, 0, 4, 0},
		"zarrita-js/v2/data.zarr/1d.contiguous.delta.shuffle.i2": {10, 0, 10, 0, 10, 0, 10, 0}, // deltas
	} {
		got, err := c.DecodeBytes(t.Context(), codectest.BytesSpec(8, 8), unzlib(arr))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s: %x %v, want %x", arr, got, err, want)
		}
	}
}

func BenchmarkUnshuffle4(b *testing.B) {
	c := newCodec(b, `{"elementsize":4}`)
	data := codectest.Bytes(rand.New(rand.NewPCG(1, 1)), 1<<20, false)
	b.SetBytes(1 << 20)
	b.ResetTimer()
	for range b.N {
		if _, err := c.DecodeBytes(b.Context(), codectest.BytesSpec(1<<20, 1<<20), data); err != nil {
			b.Fatal(err)
		}
	}
}

// The specialised 2- and 4-byte paths agree with the definition.
func TestFastPathsMatchDefinition(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, size := range []int{2, 3, 4, 5, 8} {
		for _, n := range []int{0, 1, size, 10*size + 1, 999} {
			src := codectest.Bytes(rng, n, false)
			want := make([]byte, n)
			e := n / size
			for i := range e {
				for j := range size {
					want[j*e+i] = src[i*size+j]
				}
			}
			copy(want[e*size:], src[e*size:])
			got := make([]byte, n)
			Shuffle(got, src, size)
			if !bytes.Equal(got, want) {
				t.Fatalf("size %d n %d: %x, want %x", size, n, got, want)
			}
			back := make([]byte, n)
			Unshuffle(back, got, size)
			if !bytes.Equal(back, src) {
				t.Fatalf("size %d n %d: unshuffle differs", size, n)
			}
		}
	}
}
