package references

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/zarrgw/zarrgw/core/store"
)

// BenchmarkGetOfMillion reads chunks of a set of a million references to
// 16 files at random, each target's check included: a read costs what a
// read of the file's store costs, plus the resolution (BenchmarkResolve).
func BenchmarkGetOfMillion(b *testing.B) {
	const n, files = 1_000_000, 16
	var doc strings.Builder
	doc.WriteString("{")
	for i := range n {
		if i > 0 {
			doc.WriteString(",")
		}
		fmt.Fprintf(&doc, `"v/%d": ["mem://files/nc/f%d.nc", %d, 4]`, i, i%files, (i/files)%1000*4)
	}
	doc.WriteString("}")
	set, err := ParseJSON([]byte(doc.String()))
	if err != nil {
		b.Fatal(err)
	}
	mem := store.NewMemory()
	ctx := context.Background()
	for f := range files {
		if _, err := mem.Set(ctx, fmt.Sprintf("nc/f%d.nc", f), make([]byte, 4000), store.Condition{}); err != nil {
			b.Fatal(err)
		}
	}
	s := New(set, &memTargets{stores: map[string]store.Store{"files": nopClose{mem}, "files/nc": store.ReadOnly(mustSub(b, mem, "nc/"))}}, "mem://files/")
	keys := make([]string, 4096)
	for i := range keys {
		keys[i] = fmt.Sprintf("v/%d", (i*7919)%n)
	}
	if _, err := s.Get(ctx, keys[0], store.ByteRange{}); err != nil { // the set's index, made on first use
		b.Fatal(err)
	}
	for i := 0; b.Loop(); i++ {
		if v, err := s.Get(ctx, keys[i%len(keys)], store.ByteRange{}); err != nil || len(v.Data) != 4 {
			b.Fatalf("%v %d", err, len(v.Data))
		}
	}
}

func mustSub(b *testing.B, s store.Store, prefix string) store.Store {
	sub, err := store.Sub(s, prefix)
	if err != nil {
		b.Fatal(err)
	}
	return sub
}
