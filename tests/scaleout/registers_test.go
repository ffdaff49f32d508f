package scaleout

import (
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"math"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/zarrgw/zarrgw/tests/support/servers"
)

// The history of a run: every key is a register, read by GET (the value
// and its ETag) and written by compare-and-swap (PUT with If-Match: the
// ETag read). Every value written is unique (the initial ones, then
// "c<client>-<round>"), and the store's ETag of a value is its MD5 (S3's
// ETag of a single-part upload; versitygw's; the gateway passes it on),
// which the run checks on every write's answer: an ETag names one value,
// so the model keeps the register's value and a CAS's expected value is
// the value its If-Match names.
//
// That is the value the read returned with the ETag, except when a read
// is torn: versitygw's GetObject reads the ETag before it opens the file,
// so a write published in between gives the new value with the old
// value's ETag. The value read is then the register's at that moment
// (the history has it so), and a CAS with that ETag is refused, rightly:
// the ETag is no longer current. The run counts such reads (a client
// sees a needless 412, never a lost update) and models the CAS by its
// ETag.

type opKind int

const (
	opRead  opKind = iota // GET: the value
	opWrite               // unconditional PUT (the initial values)
	opCAS                 // PUT with If-Match
)

// outcome is what a write's client learned.
type outcome int

const (
	applied outcome = iota // 2xx
	refused                // 412: the register did not hold From
	unknown                // no answer, or a 5xx: it may or may not have been applied
)

type regInput struct {
	Key      string
	Kind     opKind
	From, To string // a CAS replaces From (the value its If-Match names) with To; a write sets To
}

type regOutput struct {
	Value   string // what a read returned
	Outcome outcome
}

// registerModel is a register with compare-and-swap per key (porcupine
// checks each key's history alone). A CAS of unknown outcome is given the
// return time +inf by the run: it may take effect at any point after its
// call, including after every other operation, where it changes nothing
// anyone saw. At a point where the register holds From it is taken as
// applied, elsewhere as refused; "never applied" is its placement at the
// end. Reads that got no answer say nothing and are left out of the
// history.
var registerModel = porcupine.Model{
	Partition: func(history []porcupine.Operation) [][]porcupine.Operation {
		byKey := map[string][]porcupine.Operation{}
		var keys []string
		for _, op := range history {
			k := op.Input.(regInput).Key
			if _, ok := byKey[k]; !ok {
				keys = append(keys, k)
			}
			byKey[k] = append(byKey[k], op)
		}
		sort.Strings(keys)
		out := make([][]porcupine.Operation, len(keys))
		for i, k := range keys {
			out[i] = byKey[k]
		}
		return out
	},
	Init: func() any { return "" }, // absent
	Step: func(state, input, output any) (bool, any) {
		s, in, out := state.(string), input.(regInput), output.(regOutput)
		switch in.Kind {
		case opRead:
			return out.Value == s, s
		case opWrite:
			return true, in.To
		}
		switch out.Outcome {
		case applied:
			return s == in.From, in.To
		case refused:
			return s != in.From, s
		default:
			if s == in.From {
				return true, in.To
			}
			return true, s
		}
	},
	DescribeOperation: func(input, output any) string {
		in, out := input.(regInput), output.(regOutput)
		switch in.Kind {
		case opRead:
			return fmt.Sprintf("read %s -> %q", in.Key, out.Value)
		case opWrite:
			return fmt.Sprintf("write %s %q", in.Key, in.To)
		}
		return fmt.Sprintf("cas %s %q -> %q: %s", in.Key, in.From, in.To, [...]string{"applied", "412", "unknown"}[out.Outcome])
	},
}

// The model accepts what a register allows and refuses the rest, on
// histories written by hand: two applied CASes from one value (a lost
// update) are refused, and so is a CAS refused with 412 whose value is
// read afterwards; a CAS of unknown outcome may have been applied (its
// value read later) or not, and a read of a value nobody wrote is
// refused.
func TestRegisterModel(t *testing.T) {
	inf := int64(math.MaxInt64)
	w := func(call, ret int64, to string) porcupine.Operation {
		return porcupine.Operation{Input: regInput{Key: "k", Kind: opWrite, To: to}, Call: call, Return: ret, Output: regOutput{}}
	}
	r := func(call, ret int64, v string) porcupine.Operation {
		return porcupine.Operation{Input: regInput{Key: "k", Kind: opRead}, Call: call, Return: ret, Output: regOutput{Value: v}}
	}
	cas := func(call, ret int64, from, to string, o outcome) porcupine.Operation {
		return porcupine.Operation{Input: regInput{Key: "k", Kind: opCAS, From: from, To: to}, Call: call, Return: ret, Output: regOutput{Outcome: o}}
	}
	for _, c := range []struct {
		name    string
		history []porcupine.Operation
		want    bool
	}{
		{"cas then read", []porcupine.Operation{w(0, 1, "a"), cas(2, 3, "a", "b", applied), r(4, 5, "b")}, true},
		{"concurrent CASes from one value, one refused", []porcupine.Operation{w(0, 1, "a"), cas(2, 5, "a", "b", applied), cas(3, 6, "a", "c", refused), r(7, 8, "b")}, true},
		{"lost update: two applied CASes from one value", []porcupine.Operation{w(0, 1, "a"), cas(2, 5, "a", "b", applied), cas(3, 6, "a", "c", applied)}, false},
		{"lost update, sequential", []porcupine.Operation{w(0, 1, "a"), cas(2, 3, "a", "b", applied), cas(4, 5, "a", "c", applied)}, false},
		{"refused CAS whose value is read", []porcupine.Operation{w(0, 1, "a"), cas(2, 3, "a", "b", refused), r(4, 5, "b")}, false},
		{"stale read after a CAS", []porcupine.Operation{w(0, 1, "a"), cas(2, 3, "a", "b", applied), r(4, 5, "a")}, false},
		{"read of a value never written", []porcupine.Operation{w(0, 1, "a"), r(2, 3, "z")}, false},
		{"unknown CAS, applied", []porcupine.Operation{w(0, 1, "a"), cas(2, inf, "a", "b", unknown), r(4, 5, "b")}, true},
		{"unknown CAS, not applied", []porcupine.Operation{w(0, 1, "a"), cas(2, inf, "a", "b", unknown), r(4, 5, "a"), cas(6, 7, "a", "c", applied)}, true},
		{"unknown CAS, applied late", []porcupine.Operation{w(0, 1, "a"), cas(2, inf, "a", "b", unknown), r(4, 5, "a"), r(6, 7, "b")}, true},
		{"unknown CAS cannot undo", []porcupine.Operation{w(0, 1, "a"), cas(2, inf, "a", "b", unknown), r(4, 5, "b"), r(6, 7, "a")}, false},
	} {
		if got := porcupine.CheckOperations(registerModel, c.history); got != c.want {
			t.Errorf("%s: linearizable %v, want %v", c.name, got, c.want)
		}
	}
}

// registerRun is a run of clients doing rounds of read-then-CAS on keys
// through base.
type registerRun struct {
	keys    []string
	clients int
	rounds  int
	// midway, if set, is called (on the test's goroutine) once
	// midwayAfter operations have completed; clients wait before their
	// round pauseAt until it has returned, so that rounds run before,
	// during and after it.
	midway      func()
	midwayAfter int64
	pauseAt     int
}

// registerResult is a run's history and counts.
type registerResult struct {
	history                        []porcupine.Operation
	reads, readsFailed             int
	applied, refused, unknownCASes int
	torn                           int // reads whose ETag named an older value
	ops                            int64
}

func (r registerResult) String() string {
	return fmt.Sprintf("%d operations: %d reads (%d more got no answer; %d came with an older value's ETag), "+
		"%d CASes applied, %d refused (412), %d of unknown outcome",
		r.ops, r.reads, r.readsFailed, r.torn, r.applied, r.refused, r.unknownCASes)
}

// run writes each key's initial value, then runs the clients.
func (run registerRun) run(t *testing.T, c *cluster, base string) registerResult {
	t.Helper()
	start := time.Now()
	now := func() int64 { return int64(time.Since(start)) } // monotonic
	var (
		mu      sync.Mutex
		res     registerResult
		values  = map[string]string{} // ETag (the MD5) -> value, for every value written
		errs    []string
		done    atomic.Int64
		resumed = make(chan struct{})
	)
	if run.midway == nil {
		close(resumed)
	}
	record := func(op porcupine.Operation) {
		mu.Lock()
		defer mu.Unlock()
		res.history = append(res.history, op)
	}
	// writing notes a value about to be written, under its ETag.
	writing := func(value string) {
		mu.Lock()
		defer mu.Unlock()
		values[md5ETag(value)] = value
	}
	// named is the value an ETag names.
	named := func(etag string) (string, bool) {
		mu.Lock()
		defer mu.Unlock()
		v, ok := values[etag]
		return v, ok
	}
	fail := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		errs = append(errs, fmt.Sprintf(format, args...))
	}
	for _, k := range run.keys {
		v := "init-" + k
		writing(v)
		call := now()
		if etag := c.put(t, base, k, []byte(v)); etag != md5ETag(v) {
			t.Fatalf("PUT %s %q: ETag %s, not the value's MD5 %s, which the test takes ETags for", k, v, etag, md5ETag(v))
		}
		record(porcupine.Operation{ClientId: run.clients, Input: regInput{Key: k, Kind: opWrite, To: v}, Call: call, Return: now(), Output: regOutput{}})
	}
	var wg sync.WaitGroup
	for id := range run.clients {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(id), uint64(start.UnixNano())))
			for round := range run.rounds {
				if round == run.pauseAt {
					select {
					case <-resumed:
					case <-time.After(3 * time.Minute):
						fail("client %d: the work midway did not end within 3 minutes", id)
						return
					}
				}
				key := run.keys[rng.IntN(len(run.keys))]
				call := now()
				a := c.do(base, http.MethodGet, key, nil)
				ret := now()
				done.Add(1)
				switch {
				case a.err != nil || a.status/100 == 5:
					mu.Lock()
					res.readsFailed++
					mu.Unlock()
					continue // no answer: it tells nothing, and there is no ETag to write with
				case a.status != http.StatusOK:
					fail("client %d: GET %s: %d %s", id, key, a.status, a.body)
					return
				}
				value := string(a.body)
				from, ok := named(a.etag)
				if !ok {
					fail("client %d: GET %s: %q with ETag %s, which names no value written", id, key, value, a.etag)
					return
				}
				record(porcupine.Operation{ClientId: id, Input: regInput{Key: key, Kind: opRead}, Call: call, Return: ret, Output: regOutput{Value: value}})
				mu.Lock()
				res.reads++
				res.torn += b2i(from != value)
				mu.Unlock()

				next := fmt.Sprintf("c%d-%d", id, round)
				writing(next)
				call = now()
				a = c.do(base, http.MethodPut, key, []byte(next), "If-Match", a.etag)
				ret = now()
				done.Add(1)
				out := regOutput{}
				switch {
				case a.err != nil || a.status/100 == 5:
					out.Outcome, ret = unknown, math.MaxInt64
				case a.status/100 == 2:
					out.Outcome = applied
					if a.etag != md5ETag(next) {
						fail("client %d: PUT %s %q: ETag %s, not the value's MD5 %s, which the test takes ETags for", id, key, next, a.etag, md5ETag(next))
						return
					}
				case a.status == http.StatusPreconditionFailed:
					out.Outcome = refused
				default:
					fail("client %d: PUT %s If-Match %s: %d %s", id, key, a.etag, a.status, a.body)
					return
				}
				record(porcupine.Operation{ClientId: id, Input: regInput{Key: key, Kind: opCAS, From: from, To: next}, Call: call, Return: ret, Output: out})
				mu.Lock()
				res.applied += b2i(out.Outcome == applied)
				res.refused += b2i(out.Outcome == refused)
				res.unknownCASes += b2i(out.Outcome == unknown)
				mu.Unlock()
			}
		})
	}
	clientsDone := make(chan struct{})
	go func() { wg.Wait(); close(clientsDone) }()
	if run.midway != nil {
		waitUntil(t, fmt.Sprintf("%d operations done", run.midwayAfter), 3*time.Minute, func() bool {
			select {
			case <-clientsDone:
				mu.Lock()
				defer mu.Unlock()
				t.Fatalf("the clients ended before %d operations (%d done): %s", run.midwayAfter, done.Load(), strings.Join(errs, "; "))
			default:
			}
			return done.Load() >= run.midwayAfter
		})
		run.midway()
		close(resumed)
	}
	<-clientsDone
	if len(errs) > 0 {
		t.Fatalf("%d errors, the first: %s", len(errs), strings.Join(errs[:min(len(errs), 5)], "; "))
	}
	res.ops = done.Load()
	return res
}

// md5ETag is the ETag of value in a store whose ETags are MD5s.
func md5ETag(value string) string {
	sum := md5.Sum([]byte(value))
	return `"` + hex.EncodeToString(sum[:]) + `"`
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// check runs porcupine over the history (bounded against a hang).
func check(h []porcupine.Operation) (porcupine.CheckResult, porcupine.LinearizationInfo) {
	return porcupine.CheckOperationsVerbose(registerModel, h, time.Minute)
}

// regKeys are the registers: few, so that the clients contend.
var regKeys = []string{"reg/a", "reg/b", "reg/c"}

// Eight clients read and compare-and-swap three keys through nginx, 40
// rounds each (a GET, then a PUT with If-Match: the ETag read), while
// replica 1 is killed (SIGKILL, once 160 operations have completed) and
// started again, nginx reloaded with its new address; the clients' last
// 15 rounds wait until it serves again. A CAS that got no answer or a
// 5xx (nginx never retries a conditional write) is of unknown outcome.
// The history must be linearizable.
func TestLinearizable(t *testing.T) {
	c := newCluster(t, servers.NginxOptions{})
	run := registerRun{keys: regKeys, clients: 8, rounds: 40, midwayAfter: 160, pauseAt: 25}
	run.midway = func() {
		c.kill(t, 1)
		c.restart(t, 1, servers.NginxOptions{})
	}
	res := run.run(t, c, c.lb.URL)
	t.Logf("through nginx, replica 1 killed and restarted midway: %v", res)
	var retried, preconditionFailed int
	for _, r := range c.lb.Requests(t) {
		retried += b2i(r.Retried())
		preconditionFailed += b2i(r.Precondition && r.Status/100 == 5)
	}
	t.Logf("nginx retried %d requests; %d conditional writes were answered 5xx (never retried)", retried, preconditionFailed)
	if res.applied == 0 || res.refused == 0 {
		t.Fatalf("%v: the run needs applied and refused CASes to show anything", res)
	}
	result, info := check(res.history)
	if result != porcupine.Ok {
		path := filepath.Join(t.ArtifactDir(), "history.html")
		if err := porcupine.VisualizePath(registerModel, info, path); err != nil {
			t.Logf("visualizing the history: %v", err)
		}
		t.Fatalf("the history is not linearizable (porcupine: %s); it is drawn in %s (kept with -artifacts)", result, path)
	}
}

// ifMatchStripper is a gateway that ignores If-Match: a reverse proxy in
// front of a replica that drops the header from writes, so a stale CAS
// overwrites whatever the key holds.
func ifMatchStripper(t *testing.T, replicaURL string) string {
	t.Helper()
	target, err := url.Parse(replicaURL)
	if err != nil {
		t.Fatal(err)
	}
	proxy := &httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) {
		r.SetURL(target)
		if r.In.Method == http.MethodPut {
			r.Out.Header.Del("If-Match")
		}
	}}
	srv := httptest.NewServer(proxy)
	t.Cleanup(srv.Close)
	return strings.TrimPrefix(srv.URL, "http://")
}

// The check finds a gateway that ignores If-Match: nginx balances over
// proxies that drop the header in front of the same replicas, and the
// same clients' history is not linearizable (a stale CAS is applied: two
// CASes from one value both succeed, a lost update). Contention makes
// one near certain in a run; up to three runs are made.
func TestLinearizableFindsIgnoredIfMatch(t *testing.T) {
	c := newCluster(t, servers.NginxOptions{})
	var broken []string
	for _, g := range c.replicas {
		broken = append(broken, ifMatchStripper(t, g.URL))
	}
	c.lb.Reconfigure(t, broken, servers.NginxOptions{})
	for attempt := 1; attempt <= 3; attempt++ {
		run := registerRun{keys: regKeys, clients: 8, rounds: 25}
		res := run.run(t, c, c.lb.URL)
		result := porcupine.CheckOperationsTimeout(registerModel, res.history, time.Minute)
		t.Logf("run %d, through a gateway that ignores If-Match: %v; porcupine: %s", attempt, res, result)
		if result == porcupine.Illegal {
			if a, b, ok := lostUpdate(res.history); ok {
				t.Logf("a lost update: %s and %s", registerModel.DescribeOperation(a.Input, a.Output), registerModel.DescribeOperation(b.Input, b.Output))
			}
			return
		}
	}
	t.Fatal("porcupine found every history linearizable although the gateway ignored If-Match")
}

// lostUpdate finds two applied CASes from the same value of one key.
func lostUpdate(h []porcupine.Operation) (porcupine.Operation, porcupine.Operation, bool) {
	seen := map[[2]string]porcupine.Operation{}
	for _, op := range h {
		in := op.Input.(regInput)
		if in.Kind != opCAS || op.Output.(regOutput).Outcome != applied {
			continue
		}
		k := [2]string{in.Key, in.From}
		if prev, ok := seen[k]; ok {
			return prev, op, true
		}
		seen[k] = op
	}
	return porcupine.Operation{}, porcupine.Operation{}, false
}
