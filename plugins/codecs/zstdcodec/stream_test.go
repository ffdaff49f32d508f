package zstdcodec

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/dtype"
	"github.com/zarrgw/zarrgw/plugins/codecs/bytescodec"
)

// streamPipeline is bytes+zstd for uint32 chunks of n elements, and a
// chunk of them whose element i is i*i.
func streamPipeline(t *testing.T, n int) (*codec.Pipeline, []byte) {
	t.Helper()
	b, err := bytescodec.New(t.Context(), []byte(`{"endian":"little"}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	spec := codec.Spec{DataType: dtype.Named("uint32"), Shape: []int{n}}
	p, err := codec.FromCodecs(t.Context(), []codec.Codec{b, newCodec(t, `{"level":3}`)}, spec, 0)
	if err != nil {
		t.Fatal(err)
	}
	raw := make([]byte, 4*n)
	for i := range n {
		binary.LittleEndian.PutUint32(raw[4*i:], uint32(i*i))
	}
	return p, raw
}

func encodeRaw(t *testing.T, raw []byte) []byte {
	t.Helper()
	return encodeWith(t, `{"level":3}`, raw)
}

func encodeWith(t *testing.T, config string, raw []byte) []byte {
	t.Helper()
	enc, err := newCodec(t, config).EncodeBytes(t.Context(), codec.Spec{}, raw)
	if err != nil {
		t.Fatal(err)
	}
	return enc
}

// A chunk read as a stream, in small pieces, is the chunk; the stream
// reports a window's memory and is reusable once closed.
func TestDecodeStream(t *testing.T) {
	p, raw := streamPipeline(t, 300000)
	if !p.Streams() {
		t.Fatal("bytes+zstd does not stream")
	}
	enc := encodeRaw(t, raw)
	for range 2 { // the second takes a recycled decoder
		s, err := p.DecodeStream(t.Context(), bytes.NewReader(enc))
		if err != nil {
			t.Fatal(err)
		}
		if s.Memory() < streamBlock {
			t.Fatalf("memory %d: less than a block", s.Memory())
		}
		var got []byte
		buf := make([]byte, 777)
		for {
			n, err := s.Read(buf)
			got = append(got, buf[:n]...)
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, raw) {
			t.Fatal("streamed bytes differ from the chunk")
		}
	}
}

// Corrupt streams fail with ErrCorrupt: at open (no frame, a frame larger
// than the chunk) or while read (truncated, garbled under a checksum).
func TestDecodeStreamCorrupt(t *testing.T) {
	p, raw := streamPipeline(t, 50000)
	enc := encodeRaw(t, raw)
	longer := encodeRaw(t, append(append([]byte(nil), raw...), 1, 2, 3, 4))
	// without a checksum, garbled data may well decode to other bytes
	garbled := encodeWith(t, `{"level":3,"checksum":true}`, raw)
	for i := len(garbled) / 2; i < len(garbled)/2+64; i++ {
		garbled[i] ^= 0xa5
	}
	for name, c := range map[string]struct {
		src  []byte
		want string
	}{
		"empty":     {nil, "empty"},
		"not zstd":  {[]byte("definitely not a zstd frame at all"), "frame header"},
		"truncated": {enc[:len(enc)*2/3], "unexpected EOF"},
		"garbled":   {garbled, "corrupt"},
		"longer":    {longer, "decodes to"},
		"shorter":   {encodeRaw(t, raw[:len(raw)-8]), "ends after"},
	} {
		t.Run(name, func(t *testing.T) {
			s, err := p.DecodeStream(t.Context(), bytes.NewReader(c.src))
			if err == nil {
				_, err = io.ReadAll(s)
				s.Close()
			}
			if !errors.Is(err, codec.ErrCorrupt) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want ErrCorrupt with %q", err, c.want)
			}
		})
	}
}
