package transfer_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/zarrgw/zarrgw/core/hierarchy"
	"github.com/zarrgw/zarrgw/core/meta"
	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/host/commands/transfer"
	"github.com/zarrgw/zarrgw/host/commands/transfer/journal"
	"github.com/zarrgw/zarrgw/host/commands/transfer/layout"
)

// badChunk is a chunk of source(t)'s array g/a0.
const badChunk = "g/a0/1.1"

// has reports whether s holds key.
func has(t *testing.T, s store.Store, key string) bool {
	t.Helper()
	_, err := s.Stat(context.Background(), key)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		t.Fatal(err)
	}
	return err == nil
}

// readAll reads the whole array at path in s.
func readAll(t *testing.T, s store.Store, path string) string {
	t.Helper()
	ctx := context.Background()
	a, err := hierarchy.OpenArray(ctx, s, path, opts)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	data, err := a.ReadAll(ctx)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return fmt.Sprint(data.Data)
}

// A copy that fails to copy one chunk of an array writes the rest, but
// not that array's metadata: no reader takes the missing chunk for fill
// values. The other array and the groups are complete; a rerun with the
// journal copies the chunk, then the metadata. Byte for byte (the chunk
// gone from the source), rewritten (the chunk corrupt in the source),
// and as partition 0 of 1 of a rewrite.
func TestFailedArrayHasNoMetadata(t *testing.T) {
	cases := []struct {
		name            string
		opts            transfer.Options
		meta, otherMeta string // the failed array's and the other's documents
	}{
		{"bytes", transfer.Options{}, "g/a0/.zarray", "g/a1/.zarray"},
		{"rewrite", transfer.Options{Spec: layout.Spec{ToFormat: meta.V3}}, "g/a0/zarr.json", "g/a1/zarr.json"},
		{"partition", transfer.Options{Spec: layout.Spec{ToFormat: meta.V3}, Partition: transfer.Partition{Index: 0, Count: 1}}, "g/a0/zarr.json", "g/a1/zarr.json"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx := context.Background()
			src := source(t)
			good, err := src.Get(ctx, badChunk, store.ByteRange{})
			if err != nil {
				t.Fatal(err)
			}
			var from store.Store = src
			if c.opts.Rewrites() {
				if _, err := src.Set(ctx, badChunk, []byte("not zlib"), store.Condition{}); err != nil {
					t.Fatal(err)
				}
			} else {
				from = store.WithHook(src, func(ctx context.Context, op, key string, call func(context.Context) error) error {
					if op == "get" && key == badChunk {
						return fmt.Errorf("%s: %w", key, store.ErrNotFound) // gone since it was listed
					}
					return call(ctx)
				})
			}
			dst := store.NewMemory()
			j, err := journal.Open(ctx, t.TempDir(), "copy", nil)
			if err != nil {
				t.Fatal(err)
			}
			o := c.opts
			o.Journal = j
			s, err := transfer.Run(ctx, endpoint("src", from), endpoint("dst", dst), o)
			if !errors.Is(err, transfer.ErrFailed) || s.Failed != 1 || !strings.Contains(strings.Join(s.Failures, "\n"), "1.1") {
				t.Fatalf("copy with a failing chunk: %v, %s %q: want it to fail naming the chunk", err, s, s.Failures)
			}
			if has(t, dst, c.meta) {
				t.Fatalf("%s was written though a chunk of its array failed", c.meta)
			}
			if !has(t, dst, c.otherMeta) {
				t.Fatalf("%s was not written, though its array copied whole", c.otherMeta)
			}
			if _, err := hierarchy.OpenArray(ctx, dst, "g/a0", opts); !errors.Is(err, hierarchy.ErrNoNode) {
				t.Fatalf("the failed array opens at the destination: %v", err)
			}
			// the source mended, the rerun completes the copy
			if _, err := src.Set(ctx, badChunk, good.Data, store.Condition{}); err != nil {
				t.Fatal(err)
			}
			if s, err = transfer.Run(ctx, endpoint("src", src), endpoint("dst", dst), o); err != nil || s.Skipped == 0 {
				t.Fatalf("rerun: %v, %s: want it to complete, skipping what the first run did", err, s)
			}
			if got, want := readAll(t, dst, "g/a0"), readAll(t, src, "g/a0"); got != want {
				t.Fatal("after the rerun, the array differs from the source")
			}
		})
	}
}
