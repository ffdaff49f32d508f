package blosc

import (
	"context"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/zarrgw/zarrgw/core/codec"
)

// validFrames returns compressed (not memcpyed) frames of every inner
// codec and filter, several blocks long, with their decoded bytes.
func validFrames(t testing.TB) (frames, data [][]byte) {
	return encodedFrames(t, 40000, 16384)
}

// encodedFrames encodes n float32 values in blocks of blockSize bytes with
// every inner codec and filter.
func encodedFrames(t testing.TB, n, blockSize int) (frames, data [][]byte) {
	t.Helper()
	raw := smoothFloats(n)
	for _, cname := range allCNames {
		for _, sh := range []Shuffle{NoShuffle, ByteShuffle, BitShuffle} {
			c := &Codec{cfg: Config{CName: cname, CLevel: 3, Shuffle: sh, TypeSize: 4, BlockSize: blockSize}, par: 1}
			f, err := c.EncodeBytes(context.Background(), specOf(len(raw), "float32"), raw)
			if err != nil {
				t.Fatal(err)
			}
			frames, data = append(frames, f), append(data, raw)
		}
	}
	return frames, data
}

func wantCorrupt(t *testing.T, what string, err error) {
	t.Helper()
	if !errors.Is(err, codec.ErrCorrupt) {
		t.Fatalf("%s: error %v does not wrap codec.ErrCorrupt", what, err)
	}
}

func decodeSafely(t testing.TB, b []byte, spec codec.Spec) (out []byte, err error) {
	t.Helper()
	defer func() {
		if r := recover(); r != nil {
			t.Fatalf("decode of %d bytes panicked: %v", len(b), r)
		}
	}()
	return (&Codec{cfg: DefaultConfig(), par: 2}).DecodeBytes(context.Background(), spec, b)
}

func TestTruncatedFrames(t *testing.T) {
	frames, _ := validFrames(t)
	for _, f := range frames {
		for n := 0; n < len(f); n += 1 + n/16 {
			_, err := decodeSafely(t, f[:n], codec.Spec{DecodedSize: -1})
			wantCorrupt(t, "truncated frame", err)
		}
	}
}

// TestFlippedBytes changes every byte of a frame in turn: the decoder must
// either fail with ErrCorrupt/ErrUnsupported or return nbytes bytes.
func TestFlippedBytes(t *testing.T) {
	frames, _ := validFrames(t)
	for _, f := range frames {
		b := append([]byte(nil), f...)
		for i := 0; i < len(b); i += 1 + i/64 {
			b[i] ^= 0xA5
			out, err := decodeSafely(t, b, codec.Spec{DecodedSize: -1, MaxDecodedSize: 1 << 24})
			if err == nil && len(out) != int(binary.LittleEndian.Uint32(b[4:])) {
				t.Fatalf("byte %d flipped: decoded %d bytes", i, len(out))
			}
			if err != nil && !errors.Is(err, codec.ErrCorrupt) && !errors.Is(err, ErrUnsupported) {
				t.Fatalf("byte %d flipped: error %v", i, err)
			}
			b[i] ^= 0xA5
		}
	}
}

// header builds a 16-byte header followed by payload.
func header(flags, ts uint8, nbytes, blocksize, cbytes uint32, payload ...byte) []byte {
	b := make([]byte, 16, 16+len(payload))
	b[0], b[1], b[2], b[3] = 2, 1, flags, ts
	binary.LittleEndian.PutUint32(b[4:], nbytes)
	binary.LittleEndian.PutUint32(b[8:], blocksize)
	binary.LittleEndian.PutUint32(b[12:], cbytes)
	return append(b, payload...)
}

func TestLyingHeaders(t *testing.T) {
	le := func(v uint32) []byte { return binary.LittleEndian.AppendUint32(nil, v) }
	block := append(le(20), append(le(4), 1, 2, 3, 4)...) // bstart 20, csize 4, raw data
	cases := map[string][]byte{
		"huge nbytes, tiny frame":     header(0x30, 1, 1<<31-100, 1<<31-100, 24, block...),
		"one-byte blocks":             header(0x30, 1, 1<<30, 1, 28, block...),
		"blocksize beyond int32":      header(0x30, 1, 4, 1<<31, 28, block...),
		"cbytes beyond int32":         header(0x30, 1, 4, 4, 1<<31, block...),
		"zero blocksize":              header(0x30, 1, 4, 0, 28, block...),
		"zero typesize":               header(0x30, 0, 4, 4, 28, block...),
		"cbytes beyond frame":         header(0x30, 1, 4, 4, 29, block...),
		"cbytes below header":         header(0x30, 1, 4, 4, 8, block...),
		"memcpyed size mismatch":      header(0x32, 1, 5, 5, 20, 1, 2, 3, 4),
		"block start before data":     header(0x30, 1, 4, 4, 28, append(le(19), block[4:]...)...),
		"block start after frame":     header(0x30, 1, 4, 4, 28, append(le(29), block[4:]...)...),
		"negative stream size":        header(0x30, 1, 4, 4, 28, append(le(20), append(le(0xFFFFFFFF), 1, 2, 3, 4)...)...),
		"stream beyond frame":         header(0x30, 1, 4, 4, 28, append(le(20), append(le(5), 1, 2, 3, 4)...)...),
		"lz4 stream too short":        header(0x30, 1, 4, 4, 27, append(le(20), append(le(3), 0x30, 1, 2)...)...),
		"zstd huge stream":            header(0x90, 1, 1<<24, 1<<24, 28, block...),
		"blosclz match before output": header(0x10, 1, 8, 8, 28, append(le(20), append(le(4), 0x00, 'a', 0x20, 0x05)...)...),
	}
	for name, f := range cases {
		var err error
		allocs := allocated(func() { _, err = decodeSafely(t, f, codec.Spec{DecodedSize: -1}) })
		wantCorrupt(t, name, err)
		if allocs > 1<<20 {
			t.Errorf("%s: allocated %d bytes", name, allocs)
		}
	}
	// A block size beyond nbytes is harmless (one short block) and must
	// not size any buffer.
	var out []byte
	var err error
	allocs := allocated(func() {
		out, err = decodeSafely(t, header(0x30, 1, 4, 1<<31-100, 28, block...), codec.Spec{DecodedSize: -1})
	})
	if err != nil || string(out) != "\x01\x02\x03\x04" || allocs > 1<<20 {
		t.Fatalf("huge blocksize: %x, %v, %d bytes allocated", out, err, allocs)
	}
}

func allocated(fn func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	fn()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

func TestUnsupportedFrames(t *testing.T) {
	cases := map[string][]byte{
		"c-blosc2 extended header": header(0x05, 4, 4, 4, 20, 1, 2, 3, 4),
		"delta filter flag":        header(0x0A, 1, 4, 4, 20, 1, 2, 3, 4),
		"unknown inner codec":      header(0xA2, 1, 4, 4, 20, 1, 2, 3, 4),
	}
	v5 := header(0x02, 1, 4, 4, 20, 1, 2, 3, 4)
	v5[0] = 5
	cases["format version 5"] = v5
	for name, f := range cases {
		_, err := decodeSafely(t, f, codec.Spec{DecodedSize: -1})
		if !errors.Is(err, ErrUnsupported) {
			t.Errorf("%s: error %v does not wrap ErrUnsupported", name, err)
		}
	}
}

func TestCanceledContext(t *testing.T) {
	frames, _ := validFrames(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := (&Codec{cfg: DefaultConfig()}).DecodeBytes(ctx, codec.Spec{DecodedSize: -1}, frames[0]); !errors.Is(err, context.Canceled) {
		t.Fatalf("decode with a canceled context: %v", err)
	}
	if _, err := (&Codec{cfg: DefaultConfig()}).EncodeBytes(ctx, specOf(1<<20, "uint8"), make([]byte, 1<<20)); !errors.Is(err, context.Canceled) {
		t.Fatalf("encode with a canceled context: %v", err)
	}
}

// FuzzDecode feeds arbitrary frames to the decoder. It is seeded with
// frames of every inner codec and filter, the digest's examples and, when
// present, fixture frames; in a normal test run it checks the seeds. The
// seeds are tiny (96 floats in blocks of 128 bytes, several blocks each):
// the fuzzer minimises every new input it finds, and on frames of a few
// KiB that minimising took the whole of a brief run (about 900 executions
// in 15s); on these it explores (hundreds of thousands).
func FuzzDecode(f *testing.F) {
	frames, _ := encodedFrames(f, 96, 128)
	for _, fr := range frames {
		f.Add(fr)
	}
	for _, tc := range digestFrames {
		f.Add(mustHexTB(f, tc.frame))
	}
	if root, ok := fixturesDir(f); ok {
		for _, rel := range []string{
			"zarrs/v3/array_blosc.zarr/0.0",
			"zarr-python-v2/fixture/3/3/0",
			"zarr-python-v2/fixture/5/5/0",
			"zarrita-js/v2/data.zarr/1d.contiguous.f8/0",
		} {
			if b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel))); err == nil {
				f.Add(b)
			}
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		out, err := decodeSafely(t, b, codec.Spec{DecodedSize: -1, MaxDecodedSize: 1 << 16})
		if err != nil {
			if !errors.Is(err, codec.ErrCorrupt) && !errors.Is(err, ErrUnsupported) {
				t.Fatalf("error %v wraps neither ErrCorrupt nor ErrUnsupported", err)
			}
			return
		}
		if h, _ := ParseHeader(b); len(out) != h.NBytes {
			t.Fatalf("decoded %d bytes, header says %d", len(out), h.NBytes)
		}
	})
}
