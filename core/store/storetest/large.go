package storetest

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/zarrgw/zarrgw/core/store"
)

// testConditionalLargeValue checks that conditions hold on the store's
// path for large values too (a multipart upload's completion, a block
// list's commit), where they are easy to forget.
func testConditionalLargeValue(t *testing.T, s store.Store, opts Options) {
	big1, big2 := pattern(opts.LargeValue, 11), pattern(opts.LargeValue, 12)
	v1, err := setIf(t, s, "big", big1, store.Condition{IfNoneMatch: true})
	if err != nil {
		t.Fatalf("IfNoneMatch with a large value on a new key: %v", err)
	}
	wantConflict(t, s, "big", big2, store.Condition{IfNoneMatch: true})
	wantValue(t, s, "big", big1)
	wantVersion(t, s, "big", v1)

	v2 := mustSet(t, s, "big", big2)
	wantConflict(t, s, "big", big1, store.Condition{IfMatch: v1})
	wantValue(t, s, "big", big2)

	v3, err := setIf(t, s, "big", big1, store.Condition{IfMatch: v2})
	if err != nil {
		t.Fatalf("IfMatch with the current version and a large value: %v", err)
	}
	if v3 == v2 {
		t.Fatalf("a conditional large write kept version %q", v2)
	}
	wantValue(t, s, "big", big1)
	wantVersion(t, s, "big", v3)
	wantConflict(t, s, "absent", big1, store.Condition{IfMatch: v3})
	wantMissing(t, s, "absent")
}

// testConditionalRace lets several writers race with the same condition:
// exactly one may win, the others must see ErrConflict, and the stored
// value must be the winner's. A store that checks the condition and then
// writes lets several win.
func testConditionalRace(t *testing.T, s store.Store) {
	const writers = 8
	winner := race(t, s, writers, store.Condition{IfNoneMatch: true}, 0)
	v := mustGet(t, s, "raced", store.ByteRange{})
	if len(v.Data) != 1 || int(v.Data[0]) != winner.I {
		t.Fatalf("raced key holds %q, want the winner's [%d]", v.Data, winner.I)
	}
	wantVersion(t, s, "raced", winner.Version)

	winner = race(t, s, writers, store.Condition{IfMatch: winner.Version}, 100)
	wantValue(t, s, "raced", []byte{byte(winner.I)})
	wantVersion(t, s, "raced", winner.Version)
}

// RaceWin is a Set that won a Race: it wrote []byte{I} and got Version.
type RaceWin struct {
	I       int
	Version string
}

// Race runs writers Sets of []byte{base+i} to key under cond, released at
// the same moment, and returns those that succeeded. A failure other than
// ErrConflict is returned as an error. With a condition that only one
// writer can meet (IfNoneMatch on a new key, IfMatch on the current
// version), a store that honours conditions lets exactly one win.
func Race(ctx context.Context, s store.Store, key string, writers int, cond store.Condition, base int) ([]RaceWin, error) {
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		wins  []RaceWin
		other []error
		start = make(chan struct{})
	)
	for i := range writers {
		wg.Go(func() {
			<-start
			v, err := s.Set(ctx, key, []byte{byte(base + i)}, cond)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				wins = append(wins, RaceWin{base + i, v})
			case !errors.Is(err, store.ErrConflict):
				other = append(other, err)
			}
		})
	}
	close(start)
	wg.Wait()
	return wins, errors.Join(other...)
}

// race is Race on "raced", failing unless exactly one writer won.
func race(t *testing.T, s store.Store, writers int, cond store.Condition, base int) RaceWin {
	t.Helper()
	wins, err := Race(t.Context(), s, "raced", writers, cond, base)
	if err != nil {
		t.Fatalf("racing Sets with %+v failed other than by conflict: %v", cond, err)
	}
	if len(wins) != 1 {
		t.Fatalf("%d racing Sets with %+v succeeded, want exactly 1: %+v", len(wins), cond, wins)
	}
	return wins[0]
}

// PreconditionsDecide shows that a store's conditional writes are what
// keeps racing writers apart (core/array creates a chunk it read as
// missing with IfNoneMatch): on safe, exactly one of eight racing creates
// wins; on unsafe, the same store with its preconditions switched off by
// a test hook, several do, so the check can fail.
func PreconditionsDecide(t *testing.T, safe, unsafe store.Store) {
	t.Helper()
	create := store.Condition{IfNoneMatch: true}
	wins, err := Race(t.Context(), safe, "chunk", 8, create, 0)
	if err != nil || len(wins) != 1 {
		t.Fatalf("racing creates: %d won, %v; want 1 and the rest conflicts", len(wins), err)
	}
	if wins, err := Race(t.Context(), unsafe, "chunk", 8, create, 0); err != nil || len(wins) < 2 {
		t.Fatalf("without preconditions %d racing creates won (%v): the check cannot tell", len(wins), err)
	}
}
