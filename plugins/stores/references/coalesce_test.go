package references

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/zarrgw/zarrgw/core/store"
)

// chunkedFile is a file of n values of size bytes, each followed by gap
// bytes of padding, and, after a hole of hole bytes, n more: two regions.
// It returns the file and the reference set naming every value "v/i".
func chunkedFile(n, size, gap, hole int) ([]byte, *Set, error) {
	var file bytes.Buffer
	var doc strings.Builder
	doc.WriteString("{")
	for i := range 2 * n {
		if i == n {
			file.Write(make([]byte, hole))
		}
		val := bytes.Repeat([]byte{byte(i % 251)}, size)
		fmt.Fprintf(&doc, `"v/%d": ["mem://files/big.nc", %d, %d],`, i, file.Len(), size)
		file.Write(val)
		file.Write(bytes.Repeat([]byte{0xee}, gap))
	}
	doc.WriteString(`"v/.zarray": "{}"}`)
	set, err := ParseJSON([]byte(doc.String()))
	return file.Bytes(), set, err
}

// countingStore counts the Gets reaching a target file's store.
func countingStore(t *testing.T, file []byte) (store.Store, *atomic.Int64) {
	t.Helper()
	files := store.NewMemory()
	if _, err := files.Set(context.Background(), "big.nc", file, store.Condition{}); err != nil {
		t.Fatal(err)
	}
	var gets atomic.Int64
	return store.WithHook(nopClose{files}, func(ctx context.Context, op, key string, call func(context.Context) error) error {
		if op == "get" {
			gets.Add(1)
		}
		return call(ctx)
	}), &gets
}

// readAll reads every "v/i" with 8 parallel readers, in order, as the
// array layer reads a selection's chunks, and checks each value.
func readAll(ctx context.Context, s *Store, n, size int) error {
	var (
		next atomic.Int64
		wg   sync.WaitGroup
		errs = make(chan error, 8)
	)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1) - 1); i < 2*n; i = int(next.Add(1) - 1) {
				v, err := s.Get(ctx, fmt.Sprintf("v/%d", i), store.ByteRange{})
				if err != nil {
					errs <- err
					return
				}
				if !bytes.Equal(v.Data, bytes.Repeat([]byte{byte(i % 251)}, size)) {
					errs <- fmt.Errorf("v/%d: wrong bytes", i)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	return <-errs
}

// Within a read batch, 10 000 small values in two regions of a file (gaps
// of 100 bytes inside, 1 MiB between) are read in one request per region
// and per 4 MiB block; outside a batch each value is its own request.
func TestCoalescedReads(t *testing.T) {
	const n, size, gap = 5000, 300, 100
	file, set, err := chunkedFile(n, size, gap, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	target, gets := countingStore(t, file)
	s := New(set, &memTargets{stores: map[string]store.Store{"files": target}}, "mem://files/")

	if err := readAll(store.WithReadBatch(context.Background()), s, n, size); err != nil {
		t.Fatal(err)
	}
	// Each region is n*(size+gap) = 2 000 000 bytes: one request each.
	if got := gets.Load(); got != 2 {
		t.Errorf("a batch read of %d values made %d requests, want 2 (one per region)", 2*n, got)
	}

	gets.Store(0)
	s2 := New(set, &memTargets{stores: map[string]store.Store{"files": target}}, "mem://files/").Coalesce(DefaultMaxGap, 256<<10)
	if err := readAll(store.WithReadBatch(context.Background()), s2, n, size); err != nil {
		t.Fatal(err)
	}
	// 256 KiB blocks hold 655 values of 400 bytes: 8 blocks per region.
	if got := gets.Load(); got != 16 {
		t.Errorf("with 256 KiB blocks: %d requests, want 16", got)
	}

	gets.Store(0)
	if err := readAll(context.Background(), s, n, size); err != nil {
		t.Fatal(err)
	}
	if got := gets.Load(); got != 2*n {
		t.Errorf("outside a batch: %d requests, want %d (one per value)", got, 2*n)
	}

	gets.Store(0)
	s3 := New(set, &memTargets{stores: map[string]store.Store{"files": target}}, "mem://files/").Coalesce(50, DefaultMaxBlock)
	if err := readAll(store.WithReadBatch(context.Background()), s3, n, size); err != nil {
		t.Fatal(err)
	}
	if got := gets.Load(); got != 2*n {
		t.Errorf("with gaps wider than max_gap: %d requests, want %d", got, 2*n)
	}
}

// A run reaching past the end of a shortened file fails exactly the keys
// past the end, naming key and target; the others read.
func TestCoalescedReadPastEnd(t *testing.T) {
	const n, size, gap = 100, 300, 100
	file, set, err := chunkedFile(n, size, gap, 0)
	if err != nil {
		t.Fatal(err)
	}
	target, _ := countingStore(t, file[:150*(size+gap)+10])
	s := New(set, &memTargets{stores: map[string]store.Store{"files": target}}, "mem://files/")
	ctx := store.WithReadBatch(context.Background())
	for i := range 2 * n {
		_, err := s.Get(ctx, fmt.Sprintf("v/%d", i), store.ByteRange{})
		switch {
		case i < 150 && err != nil:
			t.Errorf("v/%d: %v", i, err)
		case i >= 150 && (err == nil || !strings.Contains(err.Error(), fmt.Sprintf(`key "v/%d"`, i)) ||
			!strings.Contains(err.Error(), "big.nc") || !strings.Contains(err.Error(), "past its end")):
			t.Errorf("v/%d past the end: %v", i, err)
		}
	}
}
