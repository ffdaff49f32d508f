package server

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zarrgw/zarrgw/host/runtime/config"
)

// A budget of two slots and 100 bytes: what does not fit is refused at
// once with expensive_wait = 0s, more than the whole is 413 whatever is
// free, and what is given back can be taken again.
func TestBudgetReserve(t *testing.T) {
	ctx := context.Background()
	b := NewBudget(config.Safeguards{ExpensiveRequests: 2, ExpensiveMemory: 100})
	r1, err := b.reserve(ctx, 60)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.reserve(ctx, 60); !isBusy(err) {
		t.Fatalf("60 more bytes: %v, want busy", err)
	}
	r2, err := b.reserve(ctx, 30)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.reserve(ctx, 1); !isBusy(err) {
		t.Fatalf("a third request: %v, want busy (two slots)", err)
	}
	var re *RequestError
	if _, err := b.reserve(ctx, 101); !errors.As(err, &re) || re.Status != http.StatusRequestEntityTooLarge || !strings.Contains(re.Msg, "expensive_memory") {
		t.Fatalf("more than the whole budget: %v, want 413 naming expensive_memory", err)
	}
	r1.Shrink(10) // the slot and 50 bytes back
	r3, err := b.reserve(ctx, 60)
	if err != nil {
		t.Fatalf("after shrink: %v", err)
	}
	r1.Release()
	r1.Release() // twice is harmless
	r2.Release()
	r3.Release()
	if !b.memory.TryAcquire(100) || !b.slots.TryAcquire(2) {
		t.Error("the budget is not whole again after every release")
	}
}

// A request waits on the semaphore for at most expensive_wait: it gets
// the room freed meanwhile, and is refused when none is.
func TestBudgetWaits(t *testing.T) {
	ctx := context.Background()
	b := NewBudget(config.Safeguards{ExpensiveRequests: 1, ExpensiveMemory: 100, ExpensiveWait: time.Minute})
	r1, err := b.reserve(ctx, 100)
	if err != nil {
		t.Fatal(err)
	}
	waiting := make(chan struct{})
	var once sync.Once
	b.waiting = func() { once.Do(func() { close(waiting) }) }
	got := make(chan error, 1)
	go func() {
		r, err := b.reserve(ctx, 100)
		if err == nil {
			r.Release()
		}
		got <- err
	}()
	<-waiting // on the slot, which r1 holds
	r1.Release()
	if err := <-got; err != nil {
		t.Fatalf("waiting request: %v", err)
	}

	b.waiting = nil
	short := NewBudget(config.Safeguards{ExpensiveRequests: 1, ExpensiveWait: 10 * time.Millisecond})
	r1, _ = short.reserve(ctx, 0)
	defer r1.Release()
	if _, err := short.reserve(ctx, 0); !isBusy(err) {
		t.Fatalf("after the wait: %v, want busy", err)
	}
	gone, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := short.reserve(gone, 0); err == nil || isBusy(err) {
		t.Fatalf("client gone: %v, want its context's error", err)
	}
}

// Without bounds, nothing is refused.
func TestBudgetOff(t *testing.T) {
	b := NewBudget(config.Safeguards{})
	for range 10 {
		if _, err := b.reserve(context.Background(), 1<<40); err != nil {
			t.Fatal(err)
		}
	}
}

func isBusy(err error) bool {
	var busy *busyError
	return errors.As(err, &busy)
}
