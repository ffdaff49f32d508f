package fsstore

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/core/store/storetest"
)

// rendezvous returns a hook that holds each caller until a second caller
// arrives or wait has passed. Without the lock two writers meet inside the
// window between version check and rename, every time; with the lock no
// second writer can get there, and each caller waits out the timeout.
func rendezvous(wait time.Duration) func() {
	meet := make(chan struct{})
	return func() {
		timer := time.NewTimer(wait)
		defer timer.Stop()
		select {
		case meet <- struct{}{}:
		case <-meet:
		case <-timer.C:
		}
	}
}

func incrementAndCount(t *testing.T, s store.Store, workers, each int) int64 {
	t.Helper()
	if _, err := storetest.RunIncrements(t.Context(), s, "c/counter", workers, each); err != nil {
		t.Fatal(err)
	}
	n, err := storetest.ReadCounter(t.Context(), s, "c/counter")
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestConditionalSetLosesNothing(t *testing.T) {
	s := newTestStore(t, WithDirSync(false))
	s.test.beforeCommit = rendezvous(3 * time.Millisecond)
	const workers, each = 4, 10
	if got := incrementAndCount(t, s, workers, each); got != workers*each {
		t.Fatalf("counter = %d after %d increments: updates were lost", got, workers*each)
	}
}

// TestConditionalSetWithoutLockLosesUpdates is the control for the test
// above: with the lock switched off, writers that both passed the version
// check both rename, and increments are lost.
func TestConditionalSetWithoutLockLosesUpdates(t *testing.T) {
	s := newTestStore(t, WithDirSync(false))
	s.test.noLock = true
	s.test.beforeCommit = rendezvous(3 * time.Millisecond)
	const workers, each = 4, 10
	got := incrementAndCount(t, s, workers, each)
	t.Logf("counter %d after %d unlocked increments", got, workers*each)
	if got >= workers*each {
		t.Fatalf("counter = %d after %d unlocked increments; expected lost updates, so the test cannot tell a working lock from none", got, workers*each)
	}
}

// Environment of a child process running TestIncrementChild.
const (
	envRoot   = "ZARRGW_FS_CHILD_ROOT"
	envID     = "ZARRGW_FS_CHILD_ID"
	envNoLock = "ZARRGW_FS_CHILD_NOLOCK"
)

const (
	childProcs   = 2
	childWorkers = 2
	childEach    = 15
)

func TestConditionalSetAcrossProcesses(t *testing.T) {
	root := t.TempDir()
	runChildren(t, root, false)
	if got := counterIn(t, root); got != childProcs*childWorkers*childEach {
		t.Fatalf("counter = %d after %d increments from %d processes: updates were lost",
			got, childProcs*childWorkers*childEach, childProcs)
	}
}

func TestConditionalSetAcrossProcessesWithoutLock(t *testing.T) {
	root := t.TempDir()
	runChildren(t, root, true)
	got := counterIn(t, root)
	t.Logf("counter %d after %d unlocked increments", got, childProcs*childWorkers*childEach)
	if got >= childProcs*childWorkers*childEach {
		t.Fatalf("counter = %d: unlocked processes lost no update, so the test cannot tell a working lock from none", got)
	}
}

// runChildren re-executes this test binary as childProcs processes that
// increment the counter in root concurrently, and waits for them.
func runChildren(t *testing.T, root string, noLock bool) {
	t.Helper()
	var cmds []*exec.Cmd
	for i := range childProcs {
		cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestIncrementChild$", "-test.count=1")
		cmd.Env = append(os.Environ(), envRoot+"="+root, envID+"="+strconv.Itoa(i),
			envNoLock+"="+strconv.FormatBool(noLock))
		cmds = append(cmds, cmd)
	}
	outs := make([][]byte, len(cmds))
	errs := make(chan error, len(cmds))
	for i, cmd := range cmds {
		go func() {
			var err error
			outs[i], err = cmd.CombinedOutput()
			errs <- err
		}()
	}
	for range cmds {
		if err := <-errs; err != nil {
			t.Errorf("child process: %v", err)
		}
	}
	if t.Failed() {
		for i, out := range outs {
			t.Logf("child %d output:\n%s", i, out)
		}
		t.FailNow()
	}
}

func counterIn(t *testing.T, root string) int64 {
	t.Helper()
	s, err := New(root)
	must(t, err)
	defer s.Close()
	n, err := storetest.ReadCounter(t.Context(), s, "c/counter")
	must(t, err)
	return n
}

// TestIncrementChild is the body of a child process; it does nothing in a
// normal test run.
func TestIncrementChild(t *testing.T) {
	root := os.Getenv(envRoot)
	if root == "" {
		t.Skip("runs only as a child of TestConditionalSetAcrossProcesses")
	}
	s, err := New(root, WithDirSync(false))
	must(t, err)
	defer s.Close()
	s.test.noLock = os.Getenv(envNoLock) == "true"
	// Processes cannot meet in a channel; a short sleep widens the window
	// between check and rename instead.
	s.test.beforeCommit = func() { time.Sleep(2 * time.Millisecond) }
	must(t, startTogether(t.Context(), s, os.Getenv(envID)))
	if _, err := storetest.RunIncrements(t.Context(), s, "c/counter", childWorkers, childEach); err != nil {
		t.Fatal(err)
	}
}

// startTogether announces this child and waits until every child has, so
// that no child finishes before another starts.
func startTogether(ctx context.Context, s store.Store, id string) error {
	if _, err := s.Set(ctx, "ready/"+id, nil, store.Condition{}); err != nil {
		return err
	}
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		keys, err := store.ListAll(ctx, s, "ready/")
		if err != nil {
			return err
		}
		if len(keys) == childProcs {
			return nil
		}
		time.Sleep(time.Millisecond)
	}
	return fmt.Errorf("other children never started")
}
