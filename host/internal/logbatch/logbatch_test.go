package logbatch

import (
	"bytes"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// gate is an output whose writes block until released, recording each
// write as one call.
type gate struct {
	mu      sync.Mutex
	calls   []string
	entered chan struct{}
	release chan struct{}
}

func newGate() *gate {
	return &gate{entered: make(chan struct{}, 100), release: make(chan struct{})}
}

func (g *gate) Write(p []byte) (int, error) {
	g.entered <- struct{}{}
	<-g.release
	g.mu.Lock()
	g.calls = append(g.calls, string(p))
	g.mu.Unlock()
	return len(p), nil
}

// open lets every write through from now on.
func (g *gate) open() { close(g.release) }

// Lines written while a write is under way go out together in the next
// write, in order: the batching itself (one write a line would make 11
// calls).
func TestLinesWaitingGoOutInOneWrite(t *testing.T) {
	g := newGate()
	w := New(g, 0)
	w.Write([]byte("first\n"))
	<-g.entered // the first line's write is under way and blocked
	for i := range 10 {
		fmt.Fprintf(w, "line %d\n", i)
	}
	g.open()
	w.Close()
	if len(g.calls) != 2 {
		t.Fatalf("%d writes, want 2 (the first line, then the ten waiting): %q", len(g.calls), g.calls)
	}
	var want strings.Builder
	for i := range 10 {
		fmt.Fprintf(&want, "line %d\n", i)
	}
	if g.calls[0] != "first\n" || g.calls[1] != want.String() {
		t.Fatalf("writes %q", g.calls)
	}
}

// A writer waits once the lines waiting reach the limit, so memory stays
// bounded while the output is stuck; it goes on once the output does.
func TestWritersWaitAtTheLimit(t *testing.T) {
	g := newGate()
	w := New(g, 64)
	w.Write([]byte("x\n"))
	<-g.entered
	line := bytes.Repeat([]byte("y"), 31)
	line[30] = '\n'
	w.Write(line)
	w.Write(line) // 62 bytes waiting: still within the limit
	third := make(chan struct{})
	go func() {
		w.Write(line) // 93 > 64: must wait for the batch to go out
		close(third)
	}()
	// the third write must wait, not return, while the output is stuck
	for {
		select {
		case <-third:
			t.Fatal("a write past the limit returned while the output was stuck")
		default:
		}
		w.mu.Lock()
		waiting, full := len(w.waiting), w.full
		w.mu.Unlock()
		if waiting > 64 {
			t.Fatalf("%d bytes waiting, limit 64", waiting)
		}
		if full == 1 {
			break
		}
		runtime.Gosched()
	}
	g.open()
	<-third
	w.Close()
	if got := strings.Join(g.calls, ""); got != "x\n"+strings.Repeat(string(line), 3) {
		t.Fatalf("output %q", got)
	}
}

// Many writers at once: every line arrives whole, once, and each writer's
// lines in its order.
func TestConcurrentWritersKeepLinesWhole(t *testing.T) {
	var out safeBuffer
	w := New(&out, 1024)
	var wg sync.WaitGroup
	for k := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 500 {
				fmt.Fprintf(w, "writer %d line %d %s\n", k, i, strings.Repeat("z", i%50))
			}
		}()
	}
	wg.Wait()
	w.Close()
	next := make([]int, 8)
	for _, l := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
		var k, i int
		if _, err := fmt.Sscanf(l, "writer %d line %d", &k, &i); err != nil {
			t.Fatalf("torn line %q", l)
		}
		if i != next[k] || !strings.HasSuffix(l, " "+strings.Repeat("z", i%50)) && i%50 != 0 {
			t.Fatalf("writer %d: line %d where %d was due: %q", k, i, next[k], l)
		}
		next[k]++
	}
	for k, n := range next {
		if n != 500 {
			t.Errorf("writer %d: %d lines arrived, want 500", k, n)
		}
	}
}

// Close writes what waits; what is written after Close goes straight out.
func TestCloseWritesEverything(t *testing.T) {
	var out safeBuffer
	w := New(&out, 0)
	for i := range 100 {
		fmt.Fprintf(w, "%d\n", i)
	}
	w.Close()
	w.Write([]byte("after\n"))
	var want strings.Builder
	for i := range 100 {
		fmt.Fprintf(&want, "%d\n", i)
	}
	want.WriteString("after\n")
	if out.String() != want.String() {
		t.Fatalf("output %q", out.String())
	}
}

type safeBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *safeBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *safeBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
