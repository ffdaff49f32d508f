package retry

import (
	"context"
	"errors"
	"fmt"
	"syscall"
	"testing"
	"time"
)

var errTransient = errors.New("transient")

func isTransient(err error) bool { return errors.Is(err, errTransient) }

func TestDo(t *testing.T) {
	p := Policy{Attempts: 4, Base: time.Millisecond, Max: 2 * time.Millisecond}
	for _, c := range []struct {
		name  string
		fails int   // attempts that fail before success
		err   error // what they fail with
		calls int
		ok    bool
	}{
		{"success", 0, nil, 1, true},
		{"transient then success", 3, errTransient, 4, true},
		{"transient throughout", 10, errTransient, 4, false},
		{"final", 10, errors.New("final"), 1, false},
	} {
		calls := 0
		err := p.Do(t.Context(), isTransient, func(context.Context) error {
			calls++
			if calls <= c.fails {
				return c.err
			}
			return nil
		})
		if (err == nil) != c.ok || calls != c.calls {
			t.Errorf("%s: %d calls, error %v; want %d calls, success %v", c.name, calls, err, c.calls, c.ok)
		}
	}
}

// A context that ends during a wait ends Do with the context's error.
func TestDoCancelled(t *testing.T) {
	// waits of an hour: a Do that ignored its context would hang here and
	// fail on the test's timeout, with no clock in the assertion
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Millisecond)
	defer cancel()
	p := Policy{Attempts: 100, Base: time.Hour, Max: time.Hour}
	if err := p.Do(ctx, isTransient, func(context.Context) error { return errTransient }); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Do under a 20 ms deadline: %v", err)
	}
}

func TestWaitBounded(t *testing.T) {
	p := Policy{Attempts: 10, Base: 10 * time.Millisecond, Max: 50 * time.Millisecond}
	for attempt := 1; attempt < 40; attempt++ {
		ceiling := min(p.Max, p.Base<<min(attempt-1, 20))
		if w := p.wait(attempt); w < 0 || w > ceiling {
			t.Fatalf("wait after attempt %d = %v, want within [0, %v]", attempt, w, ceiling)
		}
	}
}

func TestClassify(t *testing.T) {
	for code, want := range map[int]bool{200: false, 400: false, 403: false, 404: false, 408: true,
		412: false, 429: true, 500: true, 501: false, 503: true, 505: false} {
		if Status(code) != want {
			t.Errorf("Status(%d) = %v", code, !want)
		}
	}
	if !Network(fmt.Errorf("read: %w", syscall.ECONNRESET)) || Network(context.Canceled) || Network(errors.New("x")) {
		t.Error("Network misclassifies")
	}
}
