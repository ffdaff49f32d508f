package lz4codec

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"testing"

	"github.com/zarrgw/zarrgw/tests/support/fixtures/fixturecheck"

	"github.com/zarrgw/zarrgw/tests/support/fixtures"

	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/codec/codectest"
	"github.com/zarrgw/zarrgw/core/dtype"
)

var newCodec = codectest.Builder[codec.BytesBytes](New)

func TestConfiguration(t *testing.T) {
	codectest.CheckConfigurations(t, New, map[string]string{``: `{"acceleration":1}`, `{"id":"lz4","acceleration":5}`: `{"acceleration":5}`})
	codectest.CheckRefused(t, New, `{"acceleration":"fast"}`)
}

// The chunk numcodecs wrote for int16 [1,2,3,4]: a 4-byte length (8) and a
// one-sequence LZ4 block. Our encoder uses LZ4's reference algorithm, so it
// must reproduce the bytes exactly.
func TestNumcodecsBytes(t *testing.T) {
	const arr = "zarrita-js/v2/data.zarr/1d.contiguous.lz4.i2"
	raw := fixtures.Read(t, arr+"/0")
	if got := hex.EncodeToString(raw); got != "08000000"+"80"+"0100020003000400" {
		t.Fatalf("fixture bytes %s: not the documented framing", got)
	}
	c := newCodec(t, "")
	enc, err := c.EncodeBytes(t.Context(), codectest.BytesSpec(8, 8), []byte{1, 0, 2, 0, 3, 0, 4, 0})
	if err != nil || !bytes.Equal(enc, raw) {
		t.Errorf("encode = %x, %v; numcodecs wrote %x", enc, err, raw)
	}
	fixturecheck.CheckArangeChunk(t, c, arr, "0", dtype.Named("int16"), []int{4}, []int{0})
}

func TestRoundTripAndCorruption(t *testing.T) {
	codectest.CheckCompressor(t, newCodec(t, ""), false)
	codectest.CheckCompressor(t, newCodec(t, `{"acceleration":50}`), false)
}

func TestBadHeaders(t *testing.T) {
	c := newCodec(t, "")
	enc, _ := c.EncodeBytes(t.Context(), codectest.BytesSpec(-1, 0), bytes.Repeat([]byte("abcd"), 100))
	lie := func(n uint32) []byte {
		b := bytes.Clone(enc)
		binary.LittleEndian.PutUint32(b, n)
		return b
	}
	for name, in := range map[string][]byte{
		"short":            {1, 2, 3},
		"length too small": lie(399),
		"length too large": lie(401),
		"impossible ratio": lie(0xFFFFFFFF),
	} {
		_, err := codectest.DecodeNoPanic(t, c, codectest.BytesSpec(-1, 0), in)
		codectest.MustCorrupt(t, err, name)
	}
	_, err := c.DecodeBytes(t.Context(), codectest.BytesSpec(399, 399), enc)
	codectest.MustCorrupt(t, err, "spec size differs")
}

// lz4Bomb builds, without an n-byte buffer, a chunk of n zero bytes: the
// length header, then a block of one literal, one match of offset 1 whose
// length is written as 255-byte extensions, and the 5 final literals the
// format requires.
func lz4Bomb(n int) []byte {
	block := []byte{0x1f, 0, 1, 0} // 1 literal (0); match offset 1, length 15+4+ext
	rest := n - 1 - 5 - 19
	for ; rest >= 255; rest -= 255 {
		block = append(block, 255)
	}
	block = append(block, byte(rest), 0x50, 0, 0, 0, 0, 0)
	return append(binary.LittleEndian.AppendUint32(nil, uint32(n)), block...)
}

// A 100 MB bomb must fail against a 1 MB bound without allocating much,
// whether its header tells the truth or claims 1 MB.
func TestBomb(t *testing.T) {
	c := newCodec(t, "")
	small := lz4Bomb(3 << 20)
	if out, err := c.DecodeBytes(t.Context(), codectest.BytesSpec(-1, 0), small); err != nil || len(out) != 3<<20 || bytes.Count(out, []byte{0}) != len(out) {
		t.Fatalf("bomb construction is wrong: %v", err)
	}
	bomb := lz4Bomb(100 << 20)
	codectest.CheckBomb(t, c, bomb, 1<<20)
	binary.LittleEndian.PutUint32(bomb, 1<<20)
	codectest.CheckBomb(t, c, bomb, 1<<20)
}
