package sharding

import (
	"sync"
	"testing"

	"github.com/zarrgw/zarrgw/core/hierarchy"
	"github.com/zarrgw/zarrgw/core/store"
)

// TestLostUpdatesWithoutConditions proves the concurrency tests can fail:
// two writers of different inner chunks of one shard are made to read the
// shard before either writes. With conditional writes the second commit
// conflicts and is redone; when the store does not honour them (it claims
// none and drops the conditions), one of the two updates is lost.
func TestLostUpdatesWithoutConditions(t *testing.T) {
	for _, kind := range []string{"codec", "transformer"} {
		for _, honour := range []bool{true, false} {
			base := store.NewMemory()
			if _, err := hierarchy.CreateArray(ctx, base, "arr", hammerMeta(kind), opts()); err != nil {
				t.Fatal(err)
			}
			shardKey := "arr/c/0/0"
			s := newRacy(base, shardKey, 2, honour)
			var wg sync.WaitGroup
			errs := make([]error, 2)
			for w := range 2 {
				wg.Go(func() {
					a, err := hierarchy.OpenArray(ctx, s, "arr", opts())
					if err == nil {
						err = writeChunk(a, ownedChunks(w, 32)[0], value(w, 0))
					}
					errs[w] = err
				})
			}
			wg.Wait()
			for _, err := range errs {
				if err != nil {
					t.Fatal(err)
				}
			}
			lost := countLost(t, base, 2)
			switch {
			case honour && lost != 0:
				t.Errorf("%s with conditional writes: %d updates lost", kind, lost)
			case !honour && lost == 0:
				t.Errorf("%s without conditional writes: no update lost; the race was not provoked", kind)
			}
			t.Logf("%s, conditions honoured %v: %d of 2 updates lost", kind, honour, lost)
		}
	}
}
