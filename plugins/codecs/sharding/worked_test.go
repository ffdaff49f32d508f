package sharding_test

import (
	"bytes"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/zarrgw/zarrgw/core/dtype"
	"github.com/zarrgw/zarrgw/core/grid"
	"github.com/zarrgw/zarrgw/core/ndarray"
)

func unhex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.Join(strings.Fields(s), ""))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestWorkedBytes checks the three worked examples of the spec digest
// (§2.7): uint8 [4], shard [4], inner [2], inner codecs [bytes], index
// codecs [bytes little, crc32c].
func TestWorkedBytes(t *testing.T) {
	z8 := "00 00 00 00 00 00 00 00"
	ff16 := strings.Repeat("ff ", 16)
	cases := []struct {
		name, location string
		data           []byte
		want           string
	}{
		{"end", "", []byte{1, 2, 3, 4},
			"01 02 03 04" + z8 + "02 00 00 00 00 00 00 00 02 00 00 00 00 00 00 00 02 00 00 00 00 00 00 00" + "04 52 6e 88"},
		{"start", "start", []byte{1, 2, 3, 4},
			"24 00 00 00 00 00 00 00 02 00 00 00 00 00 00 00 26 00 00 00 00 00 00 00 02 00 00 00 00 00 00 00" + "0a b5 e2 39" + "01 02 03 04"},
		{"empty inner chunk", "end", []byte{1, 2, 0, 0},
			"01 02" + z8 + "02 00 00 00 00 00 00 00" + ff16 + "bd 13 bd 56"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cd := newCodec(t, config([]int{2}, `[{"name":"bytes"}]`, crcIndex, c.location))
			sp := spec("uint8", []int{4}, []byte{0})
			a := &ndarray.Array{DType: dtype.Named("uint8"), Shape: []int{4}, Data: c.data}
			enc, err := cd.Encode(ctx, sp, a)
			if err != nil {
				t.Fatal(err)
			}
			want := unhex(t, c.want)
			if !bytes.Equal(enc, want) {
				t.Fatalf("encoded\n%x\nwant\n%x", enc, want)
			}
			dec, err := cd.Decode(ctx, sp, want)
			if err != nil || !bytes.Equal(dec.Data, c.data) {
				t.Fatalf("decoded %v (%v), want %v", dec, err, c.data)
			}
			r := &memReader{Name: "shard", Data: want, Version: "1"}
			part, err := cd.DecodeRegion(ctx, sp, r, []grid.Span{{Start: 1, Step: 2, Count: 2}})
			if err != nil || !bytes.Equal(part.Data, []byte{c.data[1], c.data[3]}) {
				t.Fatalf("region [1::2] = %v (%v)", part, err)
			}
		})
	}
}

// TestLegacyIndexLayouts reads shards of configurations without
// index_codecs: the index with a CRC-32C (May-July 2023) and without one
// (March-May 2023).
func TestLegacyIndexLayouts(t *testing.T) {
	cd := newCodec(t, config([]int{2}, `[{"name":"bytes"}]`, "", ""))
	sp := spec("uint8", []int{4}, []byte{0})
	withCRC := unhex(t, "01 02 03 04 00 00 00 00 00 00 00 00 02 00 00 00 00 00 00 00 02 00 00 00 00 00 00 00 02 00 00 00 00 00 00 00 04 52 6e 88")
	plain := withCRC[:36]
	for name, b := range map[string][]byte{"crc": withCRC, "plain": plain} {
		dec, err := cd.Decode(ctx, sp, b)
		if err != nil || !bytes.Equal(dec.Data, []byte{1, 2, 3, 4}) {
			t.Errorf("%s: %v (%v)", name, dec, err)
		}
		part, err := cd.DecodeRegion(ctx, sp, &memReader{Name: "shard", Data: b}, []grid.Span{{Start: 2, Step: 1, Count: 2}})
		if err != nil || !bytes.Equal(part.Data, []byte{3, 4}) {
			t.Errorf("%s: region: %v (%v)", name, part, err)
		}
	}
	enc, err := cd.Encode(ctx, sp, &ndarray.Array{DType: dtype.Named("uint8"), Shape: []int{4}, Data: []byte{1, 2, 3, 4}})
	if err != nil || !bytes.Equal(enc, withCRC) {
		t.Fatalf("legacy configuration encodes %x (%v), want the CRC layout", enc, err)
	}
	if got := string(cd.Configuration()); strings.Contains(got, "index_codecs") {
		t.Errorf("Configuration() %s invents index_codecs", got)
	}
}
