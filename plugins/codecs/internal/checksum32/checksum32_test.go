package checksum32

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/zarrgw/zarrgw/core/codec/codectest"
)

// A toy checksum, so the framing is tested apart from any algorithm.
var toy = Algorithm{Name: "toy", Sum: func(b []byte) uint32 { return uint32(len(b)) | 0xab000000 }, DefaultEnd: true, Bare: true}

func TestFraming(t *testing.T) {
	ctx := context.Background()
	cases := []struct{ cfg, want, conf string }{
		{``, "686900030000ab", ``},
		{`{"location":"end","id":"toy"}`, "686900030000ab", ``},
		{`{"location":"start"}`, "030000ab686900", `{"location":"start"}`},
	}
	for _, c := range cases {
		cd, err := toy.New(context.Background(), json.RawMessage(c.cfg), nil)
		if err != nil {
			t.Fatal(err)
		}
		bb := cd.(*Codec)
		enc, _ := bb.EncodeBytes(ctx, codectest.BytesSpec(3, 3), []byte("hi\x00"))
		if got := hexs(enc); got != c.want {
			t.Errorf("%s: %s, want %s", c.cfg, got, c.want)
		}
		if got := string(bb.Configuration()); got != c.conf {
			t.Errorf("%s: Configuration %s, want %s", c.cfg, got, c.conf)
		}
		codectest.RoundTripBytes(t, bb, []byte("hello"))
		codectest.RoundTripBytes(t, bb, nil)
	}
	if _, err := toy.New(context.Background(), json.RawMessage(`{"location":"middle"}`), nil); err == nil {
		t.Error("bad location accepted")
	}
}

func hexs(b []byte) string {
	const digits = "0123456789abcdef"
	out := make([]byte, 0, 2*len(b))
	for _, c := range b {
		out = append(out, digits[c>>4], digits[c&15])
	}
	return string(out)
}

func TestDecodeErrors(t *testing.T) {
	cd, _ := toy.New(context.Background(), nil, nil)
	bb := cd.(*Codec)
	for _, in := range [][]byte{nil, {1, 2, 3}, {'x', 0, 0, 0, 0xab}, {'x', 2, 0, 0, 0xab}} {
		_, err := bb.DecodeBytes(context.Background(), codectest.BytesSpec(-1, 0), in)
		codectest.MustCorrupt(t, err, hexs(in))
	}
	// right checksum, wrong length for the spec
	_, err := bb.DecodeBytes(context.Background(), codectest.BytesSpec(2, 2), []byte{'x', 1, 0, 0, 0xab})
	codectest.MustCorrupt(t, err, "wrong size")
	if n, ok := bb.EncodedSize(context.Background(), codectest.BytesSpec(-1, 0), 10); !ok || n != 14 {
		t.Errorf("EncodedSize %d %v", n, ok)
	}
}
