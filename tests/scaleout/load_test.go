package scaleout

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zarrgw/zarrgw/tests/support/servers"
)

// loadKeys are the keys the load reads and writes.
const loadKeys = 16

// maxLoadOps bounds what one load client sends, against a test that
// never stops it.
const maxLoadOps = 100_000

// load is clients sending, through base, GETs and unconditional PUTs (or
// GETs only) of loadKeys keys until stopped.
type load struct {
	done     atomic.Int64
	stop     atomic.Bool
	finished chan struct{}
	mu       sync.Mutex
	tallies  map[string]*tally // by method
}

// tally is what the requests of one method got.
type tally struct {
	ok       int
	failed   int         // a 5xx, or no answer
	statuses map[int]int // every status, and 0 for no answer
	errors   []string    // the first few failures
}

func (t *tally) String() string {
	var parts []string
	var codes []int
	for code := range t.statuses {
		codes = append(codes, code)
	}
	sort.Ints(codes)
	for _, code := range codes {
		name := fmt.Sprint(code)
		if code == 0 {
			name = "no answer"
		}
		parts = append(parts, fmt.Sprintf("%s: %d", name, t.statuses[code]))
	}
	return fmt.Sprintf("%d ok, %d failed (%s)", t.ok, t.failed, strings.Join(parts, ", "))
}

// populate writes the load's keys.
func (c *cluster) populate(t *testing.T) {
	t.Helper()
	for k := range loadKeys {
		c.put(t, c.lb.URL, fmt.Sprintf("load/k%d", k), []byte(strings.Repeat("v", 1024)))
	}
}

// startLoad starts clients; the load stops by end, or when the test ends.
func startLoad(t *testing.T, c *cluster, base string, clients int, getsOnly bool) *load {
	l := &load{finished: make(chan struct{}), tallies: map[string]*tally{}}
	var wg sync.WaitGroup
	for id := range clients {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(id), uint64(time.Now().UnixNano())))
			body := []byte(strings.Repeat(fmt.Sprintf("%x", id), 1024))
			for range maxLoadOps {
				if l.stop.Load() {
					return
				}
				key := fmt.Sprintf("load/k%d", rng.IntN(loadKeys))
				method, want := http.MethodGet, http.StatusOK
				var b []byte
				if !getsOnly && rng.IntN(2) == 0 {
					method, want, b = http.MethodPut, http.StatusNoContent, body
				}
				a := c.do(base, method, key, b)
				l.note(method, key, want, a)
				l.done.Add(1)
			}
		})
	}
	go func() { wg.Wait(); close(l.finished) }()
	t.Cleanup(func() { l.stop.Store(true); <-l.finished })
	return l
}

func (l *load) note(method, key string, want int, a answer) {
	l.mu.Lock()
	defer l.mu.Unlock()
	t := l.tallies[method]
	if t == nil {
		t = &tally{statuses: map[int]int{}}
		l.tallies[method] = t
	}
	code := a.status
	if a.err != nil {
		code = 0
	}
	t.statuses[code]++
	if code == want {
		t.ok++
		return
	}
	t.failed++
	if len(t.errors) < 5 {
		what := fmt.Sprintf("%d %.80s", a.status, strings.Join(strings.Fields(string(a.body)), " "))
		if a.err != nil {
			what = a.err.Error()
		}
		t.errors = append(t.errors, fmt.Sprintf("%s %s: %s", method, key, what))
	}
}

// waitOps waits until n operations have completed, bounded against a
// hang.
func (l *load) waitOps(t *testing.T, n int64) {
	t.Helper()
	waitUntil(t, fmt.Sprintf("%d operations of the load", n), 3*time.Minute, func() bool {
		select {
		case <-l.finished:
			t.Fatalf("the load ended after %d operations, before %d", l.done.Load(), n)
		default:
		}
		return l.done.Load() >= n
	})
}

// end stops the load and returns what each method's requests got.
func (l *load) end() map[string]*tally {
	l.stop.Store(true)
	<-l.finished
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.tallies
}

// get is the tally of a method (empty if none was sent).
func get(tallies map[string]*tally, method string) *tally {
	if t := tallies[method]; t != nil {
		return t
	}
	return &tally{statuses: map[int]int{}}
}

// describe is every method's tally, and the first failures.
func describe(tallies map[string]*tally) string {
	var lines []string
	for _, m := range []string{http.MethodGet, http.MethodPut} {
		if t := tallies[m]; t != nil {
			lines = append(lines, fmt.Sprintf("%s: %v", m, t))
			for _, e := range t.errors {
				lines = append(lines, "  "+e)
			}
		}
	}
	return strings.Join(lines, "\n")
}

// drainedWork reads a replica's log after a SIGTERM: how many requests
// it served from the moment it began draining (its "draining" line) to
// its exit.
func drainedWork(log string) int {
	_, after, ok := strings.Cut(log, "draining")
	if !ok {
		return -1
	}
	return strings.Count(after, `"msg":"request"`)
}

// retriedAway counts the requests nginx sent to backend first and then
// to another.
func retriedAway(reqs []servers.NginxRequest, backend string) int {
	n := 0
	for _, r := range reqs {
		if r.Retried() && r.Backends[0] == backend {
			n++
		}
	}
	return n
}

// retried counts the requests nginx sent to more than one backend.
func retried(reqs []servers.NginxRequest) int {
	n := 0
	for _, r := range reqs {
		n += b2i(r.Retried())
	}
	return n
}

// A replica stopped with SIGTERM under load costs no request: eight
// clients send GETs and unconditional PUTs through nginx; after 300
// operations replica 1 gets SIGTERM and drains (drain_delay = "2s": it
// serves while /readyz fails and every answer closes its connection,
// then closes its listener and finishes what it holds), and the load goes
// on for 300 operations after it has exited. No request fails: nginx
// passes a request that met the closed port (or a connection closed
// under it) to another replica. The same with nginx retrying nothing
// fails requests: the retries are what the zero rests on.
func TestDrain(t *testing.T) {
	c := newCluster(t, servers.NginxOptions{})
	c.populate(t)

	l := startLoad(t, c, c.lb.URL, 8, false)
	l.waitOps(t, 300)
	drained := c.addrs()[1]
	c.replicas[1].Stop(t) // SIGTERM; returns once it has exited
	exited := l.done.Load()
	l.waitOps(t, exited+300)
	tallies := l.end()
	reqs := c.lb.Requests(t)
	t.Logf("SIGTERM to replica 1 (%s) after 300 operations; it exited after %d; %d in all:\n%s",
		drained, exited, l.done.Load(), describe(tallies))
	t.Logf("replica 1 served %d requests while draining; nginx passed %d requests from it to another replica (%d retried in all)",
		drainedWork(c.replicas[1].Log.String()), retriedAway(reqs, drained), retried(reqs))
	for _, m := range []string{http.MethodGet, http.MethodPut} {
		if get(tallies, m).ok == 0 || get(tallies, m).failed != 0 {
			t.Errorf("%s through nginx while a replica drained: %v; want every one answered, none failed", m, get(tallies, m))
		}
	}
	if n := retriedAway(reqs, drained); n == 0 {
		t.Errorf("nginx retried no request away from the drained replica: the load never met its closed port, so the test shows nothing")
	}
	if t.Failed() {
		return
	}

	// The same drain (replica 2 this time), nginx retrying nothing.
	c.start(t, 1)
	c.lb.Reconfigure(t, c.addrs(), servers.NginxOptions{NoRetry: true})
	l = startLoad(t, c, c.lb.URL, 8, false)
	l.waitOps(t, 300)
	c.replicas[2].Stop(t)
	exited = l.done.Load()
	l.waitOps(t, exited+300)
	tallies = l.end()
	t.Logf("the same, nginx retrying nothing:\n%s", describe(tallies))
	if get(tallies, http.MethodGet).failed+get(tallies, http.MethodPut).failed == 0 {
		t.Errorf("no request failed while a replica drained behind nginx retrying nothing: the drain test could not fail")
	}
}

// A replica killed (SIGKILL) under load and started again costs no read:
// eight clients send GETs and unconditional PUTs through nginx; after
// 300 operations replica 1 is killed, after 300 more it is started again
// (on a new port) and nginx reloaded with it, and the load goes on for
// 300 more. Reads that met the dead replica (their connection reset, or
// refused) are retried by nginx on another: none fails. So are
// unconditional PUTs, and none is answered 5xx; a PUT can still fail
// without an answer where nginx's reload closes a client's idle
// connection as the client sends on it (Go's client resends only GETs
// there), so those are counted, not forbidden. With nginx retrying
// nothing, a kill fails reads.
func TestKillUnderLoad(t *testing.T) {
	c := newCluster(t, servers.NginxOptions{})
	c.populate(t)

	l := startLoad(t, c, c.lb.URL, 8, false)
	l.waitOps(t, 300)
	killed := c.addrs()[1]
	c.kill(t, 1)
	l.waitOps(t, l.done.Load()+300)
	c.restart(t, 1, servers.NginxOptions{})
	l.waitOps(t, l.done.Load()+300)
	tallies := l.end()
	reqs := c.lb.Requests(t)
	t.Logf("replica 1 (%s) killed after 300 operations, restarted after 300 more, then 300 more; %d in all:\n%s",
		killed, l.done.Load(), describe(tallies))
	t.Logf("nginx passed %d requests from the killed replica to another", retriedAway(reqs, killed))
	gets, puts := get(tallies, http.MethodGet), get(tallies, http.MethodPut)
	if gets.ok == 0 || gets.failed != 0 {
		t.Errorf("GETs through nginx while a replica was killed and restarted: %v; want none failed", gets)
	}
	for code, n := range puts.statuses {
		if code/100 == 5 {
			t.Errorf("%d PUTs answered %d: nginx retries unconditional PUTs, none should fail with a 5xx", n, code)
		}
	}
	if retriedAway(reqs, killed) == 0 {
		t.Errorf("nginx retried no request away from the killed replica: the load never met it, so the test shows nothing")
	}
	if t.Failed() {
		return
	}

	// The same kill (replica 2), reads only, nginx retrying nothing.
	c.lb.Reconfigure(t, c.addrs(), servers.NginxOptions{NoRetry: true})
	l = startLoad(t, c, c.lb.URL, 8, true)
	l.waitOps(t, 300)
	c.kill(t, 2)
	l.waitOps(t, l.done.Load()+300)
	tallies = l.end()
	t.Logf("the same, reads only, nginx retrying nothing:\n%s", describe(tallies))
	if get(tallies, http.MethodGet).failed == 0 {
		t.Errorf("no read failed while a replica was killed behind nginx retrying nothing: the kill test could not fail")
	}
	c.start(t, 2)
}
