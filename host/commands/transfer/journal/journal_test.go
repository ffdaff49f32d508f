package journal_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/zarrgw/zarrgw/host/commands/transfer/journal"
)

// A second run of one copy at once waits for the journal's holder, then
// goes on from everything the holder recorded, even once the holder has
// finished and removed it; Ctrl-C (ctx) ends the wait.
func TestJournalWaitsForItsHolder(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	holder, err := journal.Open(ctx, dir, "copy", nil)
	if err != nil {
		t.Fatal(err)
	}
	holder.Record("k a", "1")
	waiting := make(chan string, 1)
	opened := make(chan *journal.Journal, 1)
	go func() {
		j, err := journal.Open(ctx, dir, "copy", func(path string) { waiting <- path })
		if err != nil {
			t.Error(err)
		}
		opened <- j
	}()
	select {
	case <-waiting:
	case <-time.After(time.Minute):
		t.Fatal("a second run of the copy did not wait for the journal's holder")
	}
	select {
	case <-opened:
		t.Fatal("the second run took the journal its holder holds")
	default:
	}
	holder.Record("k b", "2")
	if err := holder.Finish(); err != nil {
		t.Fatal(err)
	}
	var second *journal.Journal
	select {
	case second = <-opened:
	case <-time.After(time.Minute):
		t.Fatal("the second run still waits after the holder finished")
	}
	if d, ok := second.Done("k b"); !ok || d != "2" || second.Resumed() != 2 {
		t.Fatalf("the second run goes on from %d entries (k b: %q %v), want the holder's 2", second.Resumed(), d, ok)
	}
	// what it carried over is in the journal's file: a third run, after
	// a crash of the second, has it too
	second.Close()
	third, err := journal.Open(ctx, dir, "copy", nil)
	if err != nil || third.Resumed() != 2 {
		t.Fatalf("after the second run's crash: %v, %d entries", err, third.Resumed())
	}
	stopped, stop := context.WithCancel(ctx)
	ended := make(chan error, 1)
	go func() {
		_, err := journal.Open(stopped, dir, "copy", func(string) { stop() })
		ended <- err
	}()
	select {
	case err := <-ended:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("a wait ended by its context: %v", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("a wait goes on after its context ended")
	}
	third.Close()
}
