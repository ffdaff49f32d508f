package storetest

import (
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
	if len(v.Data) != 1 || int(v.Data[0]) != winner.i {
		t.Fatalf("raced key holds %q, want the winner's [%d]", v.Data, winner.i)
	}
	wantVersion(t, s, "raced", winner.version)

	winner = race(t, s, writers, store.Condition{IfMatch: winner.version}, 100)
	wantValue(t, s, "raced", []byte{byte(winner.i)})
	wantVersion(t, s, "raced", winner.version)
}

type raceWin struct {
	i       int
	version string
}

// race runs writers Sets of []byte{base+i} under cond at once and returns
// the one that succeeded, failing unless exactly one did.
func race(t *testing.T, s store.Store, writers int, cond store.Condition, base int) raceWin {
	t.Helper()
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		wins  []raceWin
		other []error
		start = make(chan struct{})
	)
	for i := range writers {
		wg.Go(func() {
			<-start
			v, err := s.Set(t.Context(), "raced", []byte{byte(base + i)}, cond)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				wins = append(wins, raceWin{base + i, v})
			case !errors.Is(err, store.ErrConflict):
				other = append(other, err)
			}
		})
	}
	close(start)
	wg.Wait()
	if len(other) > 0 {
		t.Fatalf("racing Sets with %+v failed other than by conflict: %v", cond, errors.Join(other...))
	}
	if len(wins) != 1 {
		t.Fatalf("%d racing Sets with %+v succeeded, want exactly 1: %+v", len(wins), cond, wins)
	}
	return wins[0]
}
