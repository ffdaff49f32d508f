package references

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/zarrgw/zarrgw/core/store"
)

// A Parquet index is refused when its grid could not be walked: a shape
// at the int64 limit (whose chunk count once overflowed to a negative
// one), more record files than an array may have, a record_size past the
// bound; a grid that fits is read.
func TestParquetIndexBounds(t *testing.T) {
	for zarray, want := range map[string]string{
		`{"shape":[9223372036854775807],"chunks":[2]}`:                   "more than 1048576 record files",
		`{"shape":[9223372036854775807],"chunks":[1]}`:                   "more than 1048576 record files",
		`{"shape":[4294967296,4294967296],"chunks":[1,1]}`:               "too many chunks",
		`{"shape":[104857600001],"chunks":[1]}`:                          "more than 1048576 record files",
		`{"shape":[9223372036854775807],"chunks":[9223372036854775807]}`: "",
	} {
		a, err := parseArray("x", []byte(zarray), 100_000)
		switch {
		case want == "" && (err != nil || a.count != 1):
			t.Errorf("%s: %+v (%v), want one chunk", zarray, a, err)
		case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
			t.Errorf("%s: %+v (%v), want an error containing %q", zarray, a, err, want)
		}
	}
	for size, ok := range map[int64]bool{1: true, maxRecordSize: true, maxRecordSize + 1: false, 0: false, -5: false} {
		_, _, _, err := decodeIndex([]byte(fmt.Sprintf(`{"metadata": {}, "record_size": %d}`, size)))
		if (err == nil) != ok {
			t.Errorf("record_size %d: %v, want accepted %v", size, err, ok)
		}
	}
}

// The paths and inline values one record file decodes to are bounded by
// the set's limits: a record file over them is an error naming it, one
// within them reads.
func TestParquetRecordBytesBounded(t *testing.T) {
	ctx := context.Background()
	doc := `{"v/.zarray": "{\"zarr_format\":2,\"shape\":[10],\"chunks\":[1],\"dtype\":\"|u1\",\"compressor\":null,\"fill_value\":0,\"order\":\"C\",\"filters\":null}"`
	for i := range 10 {
		doc += fmt.Sprintf(`, "v/%d": "%s"`, i, strings.Repeat("x", 1000))
	}
	set, err := ParseJSON([]byte(doc + "}"))
	if err != nil {
		t.Fatal(err)
	}
	dir := store.NewMemory()
	if err := WriteParquet(ctx, set, dir, 10); err != nil {
		t.Fatal(err)
	}
	for limit, ok := range map[int64]bool{1 << 20: true, 5000: false} {
		p, err := OpenParquetWithin(ctx, dir, "set.parq", Limits{SetBytes: DefaultLimits.SetBytes, Generated: 1, Bytes: limit})
		if err != nil {
			t.Fatal(err)
		}
		r, _, _, err := p.Lookup(ctx, "v/3")
		switch {
		case ok && (err != nil || len(r.Data) != 1000):
			t.Errorf("within %d bytes: %d bytes (%v)", limit, len(r.Data), err)
		case !ok && (err == nil || !strings.Contains(err.Error(), "v/refs.0.parq") || !strings.Contains(err.Error(), "max_generated_bytes")):
			t.Errorf("over %d bytes: %v, want an error naming the record file and the bound", limit, err)
		case !ok && !errors.Is(err, errBudget) && !strings.Contains(err.Error(), "decode to"):
			t.Errorf("over %d bytes: %v", limit, err)
		}
	}
}
