package blosc

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"
)

// refShuffle is the definition of the byte shuffle, written as plainly as
// possible: shuffled[j*e+i] = orig[i*ts+j], trailing bytes unchanged.
func refShuffle(ts int, src []byte) []byte {
	e := len(src) / ts
	out := make([]byte, len(src))
	for i := 0; i < e; i++ {
		for j := 0; j < ts; j++ {
			out[j*e+i] = src[i*ts+j]
		}
	}
	copy(out[e*ts:], src[e*ts:])
	return out
}

// refBitShuffle is the definition of the bit shuffle: row 8*b+k holds bit k
// of byte b of every element, element i at bit i%8 of row byte i/8.
func refBitShuffle(ts int, src []byte) []byte {
	e := len(src) / ts
	out := make([]byte, len(src))
	if e%8 != 0 {
		copy(out, src)
		return out
	}
	rowLen := e / 8
	for i := 0; i < e; i++ {
		for b := 0; b < ts; b++ {
			v := src[i*ts+b]
			for k := 0; k < 8; k++ {
				bit := (v >> k) & 1
				out[(8*b+k)*rowLen+i/8] |= bit << (i % 8)
			}
		}
	}
	copy(out[e*ts:], src[e*ts:])
	return out
}

func randBytes(seed uint64, n int) []byte {
	rng := rand.New(rand.NewPCG(seed, 7))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
	return b
}

var shuffleSizes = []int{0, 1, 7, 8, 15, 16, 63, 64, 65, 127, 128, 129, 255, 256, 511, 513, 1000, 1024, 4096, 4099, 65536 + 24}

func TestShuffleMatchesReference(t *testing.T) {
	for _, ts := range []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 16, 17, 255} {
		for _, n := range shuffleSizes {
			src := randBytes(uint64(ts*100000+n), n)
			want := refShuffle(ts, src)
			got := make([]byte, n)
			shuffle(ts, src, got)
			if !bytes.Equal(got, want) {
				t.Fatalf("shuffle ts=%d n=%d differs from the reference", ts, n)
			}
			back := make([]byte, n)
			unshuffle(ts, got, back)
			if !bytes.Equal(back, src) {
				t.Fatalf("unshuffle ts=%d n=%d does not invert shuffle", ts, n)
			}
		}
	}
}

func TestBitShuffleMatchesReference(t *testing.T) {
	for _, ts := range []int{1, 2, 3, 4, 5, 8, 12, 16, 17} {
		for _, n := range shuffleSizes {
			src := randBytes(uint64(ts*100000+n+1), n)
			want := refBitShuffle(ts, src)
			got, tmp := make([]byte, n), make([]byte, n)
			bitshuffle(ts, src, got, tmp)
			if !bytes.Equal(got, want) {
				t.Fatalf("bitshuffle ts=%d n=%d differs from the reference", ts, n)
			}
			back := make([]byte, n)
			bitunshuffle(ts, got, back, tmp)
			if !bytes.Equal(back, src) {
				t.Fatalf("bitunshuffle ts=%d n=%d does not invert bitshuffle", ts, n)
			}
		}
	}
}

// TestBitShuffleKnownBytes checks one hand-worked case: eight 1-byte
// elements 0x01,0,0,0,0,0,0,0x80 give row 0 = 0x01 (bit 0 of element 0)
// and row 7 = 0x80 (bit 7 of element 7).
func TestBitShuffleKnownBytes(t *testing.T) {
	src := []byte{0x01, 0, 0, 0, 0, 0, 0, 0x80}
	got, tmp := make([]byte, 8), make([]byte, 8)
	bitshuffle(1, src, got, tmp)
	want := []byte{0x01, 0, 0, 0, 0, 0, 0, 0x80}
	if !bytes.Equal(got, want) {
		t.Fatalf("got %x want %x", got, want)
	}
	src = []byte{0xff, 0, 0, 0, 0, 0, 0, 0}
	bitshuffle(1, src, got, tmp)
	want = []byte{1, 1, 1, 1, 1, 1, 1, 1}
	if !bytes.Equal(got, want) {
		t.Fatalf("got %x want %x", got, want)
	}
}

func BenchmarkShuffle(b *testing.B) {
	const n = 1 << 20
	src, dst, tmp := randBytes(1, n), make([]byte, n), make([]byte, n)
	for _, ts := range []int{2, 4, 8, 3} {
		b.Run(fmt.Sprintf("shuffle/ts=%d", ts), func(b *testing.B) {
			b.SetBytes(n)
			for b.Loop() {
				shuffle(ts, src, dst)
			}
		})
		b.Run(fmt.Sprintf("unshuffle/ts=%d", ts), func(b *testing.B) {
			b.SetBytes(n)
			for b.Loop() {
				unshuffle(ts, src, dst)
			}
		})
		b.Run(fmt.Sprintf("bitshuffle/ts=%d", ts), func(b *testing.B) {
			b.SetBytes(n)
			for b.Loop() {
				bitshuffle(ts, src, dst, tmp)
			}
		})
		b.Run(fmt.Sprintf("bitunshuffle/ts=%d", ts), func(b *testing.B) {
			b.SetBytes(n)
			for b.Loop() {
				bitunshuffle(ts, src, dst, tmp)
			}
		})
	}
}

// TestPortableKernels checks the SWAR kernels against the reference on
// every machine, including those where assembly replaces them.
func TestPortableKernels(t *testing.T) {
	for _, ts := range []int{2, 4, 8} {
		for _, e := range []int{0, 7, 8, 15, 16, 17, 100, 1000, 4099} {
			src := randBytes(uint64(ts*7919+e), ts*e)
			want := refShuffle(ts, src)
			planes := make([][]byte, ts)
			for j := range planes {
				planes[j] = make([]byte, e)
			}
			var done int
			switch ts {
			case 2:
				done = deinterleave2SWAR(src, planes[0], planes[1], e)
			case 4:
				done = deinterleave4SWAR(src, planes[0], planes[1], planes[2], planes[3], e)
			case 8:
				done = deinterleave8SWAR(src, planes, e)
			}
			for j, p := range planes {
				if !bytes.Equal(p[:done], want[j*e:j*e+done]) {
					t.Fatalf("deinterleave%dSWAR e=%d: plane %d differs", ts, e, j)
				}
				copy(p, want[j*e:(j+1)*e])
			}
			back := make([]byte, ts*e)
			switch ts {
			case 2:
				done = interleave2SWAR(planes[0], planes[1], back, e)
			case 4:
				done = interleave4SWAR(planes[0], planes[1], planes[2], planes[3], back, e)
			case 8:
				done = interleave8SWAR(planes, back, e)
			}
			if done < e-15 || !bytes.Equal(back[:ts*done], src[:ts*done]) {
				t.Fatalf("interleave%dSWAR e=%d: did %d elements, or they differ", ts, e, done)
			}
		}
	}
}

// TestInterleaveSeparatePlanes feeds planes that do not sit next to each
// other, as the decoder does with planes stored raw in the frame.
func TestInterleaveSeparatePlanes(t *testing.T) {
	for _, ts := range []int{2, 3, 4, 8} {
		e := 1000 + ts
		src := randBytes(uint64(ts), ts*e)
		shuffled := refShuffle(ts, src)
		planes := make([][]byte, ts)
		for j := range planes {
			planes[j] = append(make([]byte, 0, e+64), shuffled[j*e:(j+1)*e]...)
		}
		got := make([]byte, ts*e)
		interleave(planes, e, got)
		if !bytes.Equal(got, src) {
			t.Fatalf("ts=%d: interleave of separate planes differs", ts)
		}
	}
}

// TestPortableBitTranspose checks the SWAR bit transposes on their own.
func TestPortableBitTranspose(t *testing.T) {
	for _, e := range []int{8, 64, 72, 128, 1000, 4096 + 8} {
		p := randBytes(uint64(e), e)
		want := refBitShuffle(1, p)
		r := make([]byte, e)
		bitTransposeSWAR(p, r, 0)
		if !bytes.Equal(r, want) {
			t.Fatalf("bitTransposeSWAR e=%d differs from the reference", e)
		}
		back := make([]byte, e)
		bitUntransposeSWAR(r, back, 0)
		if !bytes.Equal(back, p) {
			t.Fatalf("bitUntransposeSWAR e=%d does not invert", e)
		}
	}
}
