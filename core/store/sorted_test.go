package store_test

import (
	"context"
	"slices"
	"testing"

	"github.com/zarrgw/zarrgw/core/store"
)

// dirCounter records the directories a sorted walk lists.
type dirCounter struct {
	*store.Memory
	listed []string
}

func (d *dirCounter) ListDir(ctx context.Context, prefix string) (store.Dir, error) {
	d.listed = append(d.listed, prefix)
	return d.Memory.ListDir(ctx, prefix)
}

// A sorted listing from a prefix plus SkipPast goes on after the keys
// below that prefix without listing their directory.
func TestListSortedSkipsPast(t *testing.T) {
	ctx := context.Background()
	d := &dirCounter{Memory: store.NewMemory()}
	for _, k := range []string{"a/1", "big/1", "big/2", "big/deep/3", "big0", "c/1"} {
		if _, err := d.Set(ctx, k, []byte(k), store.Condition{}); err != nil {
			t.Fatal(err)
		}
	}
	// without the memory store's own sorted listing: the walk is tested
	walked := store.WithOptional(d, store.Optional{})
	var got []string
	for k, err := range store.ListSorted(ctx, walked, "", "big/"+store.SkipPast) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, k)
	}
	if !slices.Equal(got, []string{"big0", "c/1"}) {
		t.Fatalf("listed %v, want [big0 c/1]", got)
	}
	if slices.Contains(d.listed, "big/") || slices.Contains(d.listed, "a/") {
		t.Fatalf("listed directories %v: those before the start were read", d.listed)
	}
}
