// Package cache runs `zarrgw serve` with the cache storage transformer
// over S3 (versitygw) behind a latency proxy (toxiproxy's latency toxic)
// and counts what reaches the store: at an HTTP proxy between toxiproxy
// and versitygw (every request S3 receives, by method) and in the
// gateway's own metrics (zarrgw_store_call_duration_seconds, which times
// the store's calls below every transformer). It shows that a second
// read makes no store GET, that concurrent readers of one key share one
// GET, that a sharded array's second read makes no store call at all,
// that replicas stay correct over one bucket, and that the disk tier
// survives a restart and never serves a damaged file. It also runs the
// store conformance suite over the cache over S3.
//
// No test asserts a duration: waits follow progress, bounded only against
// a hang.
package cache

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	bin "github.com/zarrgw/zarrgw/tests/support/binary"
	"github.com/zarrgw/zarrgw/tests/support/servers"
)

var zarrgwBin string

func TestMain(m *testing.M) { bin.Main(m, &zarrgwBin) }

// latencyMS is the latency toxiproxy adds to every answer of the store:
// enough that concurrent readers overlap and that a read the cache failed
// to keep is obvious in a log, small enough for the suite's time.
const latencyMS = 20

// backend is versitygw with one bucket, reachable two ways: directly
// (for writes that set up data, and for checking what S3 holds), and
// slowly, through toxiproxy's latency toxic and then a counting proxy
// (what the cached datasets read through).
type backend struct {
	srv    *servers.S3
	bucket string
	count  *counter
	// slow is the endpoint through the latency toxic and the counter.
	slow string
}

func newBackend(t *testing.T) *backend {
	t.Helper()
	srv := servers.StartS3(t)
	b := &backend{srv: srv, bucket: srv.NewBucket(t)}
	b.count = newCounter(t, srv.Addr)
	proxy := servers.Toxiproxy(t, b.count.addr)
	spec := fmt.Sprintf(`{"name":"latency","type":"latency","stream":"downstream","attributes":{"latency":%d}}`, latencyMS)
	if _, err := proxy.Toxics.AddToxicJson(strings.NewReader(spec)); err != nil {
		t.Fatalf("toxic %s: %v", spec, err)
	}
	b.slow = "http://" + proxy.Listen
	return b
}

// env is the environment a gateway over the backend runs with: the
// credentials, never in the configuration file.
func (b *backend) env() []string {
	return []string{"AWS_ACCESS_KEY_ID=" + b.srv.AccessKey, "AWS_SECRET_ACCESS_KEY=" + b.srv.SecretKey,
		"AWS_REGION=" + b.srv.Region}
}

// stores declares store.s3.slow (through the latency toxic and the
// counter) and store.s3.direct (straight to versitygw) on the bucket.
func (b *backend) stores() string {
	return fmt.Sprintf(`
store "s3" "slow" {
  bucket   = %q
  endpoint = %q
}
store "s3" "direct" {
  bucket   = %q
  endpoint = %q
}
`, b.bucket, b.slow, b.bucket, b.srv.Endpoint)
}

// counter is an HTTP reverse proxy in front of versitygw that counts the
// requests for objects of the bucket by method (listings and bucket
// requests apart), and can hold GETs of chosen keys until released.
type counter struct {
	addr string
	mu   sync.Mutex
	// byMethod counts object requests ("GET", "HEAD", "PUT", ...); other
	// counts bucket-level requests (listings).
	byMethod map[string]int64
	other    int64
	// held: GETs whose object path ends with a key of it wait for its
	// channel to close; arrived is signalled once for each such GET.
	held    map[string]chan struct{}
	arrived chan string
	// failing: GETs whose object path ends with a key of it are answered
	// with its answer instead of S3's.
	failing map[string]failure
}

type failure struct {
	status int
	body   string
}

func newCounter(t *testing.T, upstream string) *counter {
	t.Helper()
	target := &url.URL{Scheme: "http", Host: upstream}
	proxy := &httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) {
		r.SetURL(target)
		r.Out.Host = r.In.Host // the signature covers the Host header
	}}
	c := &counter{byMethod: map[string]int64{}, held: map[string]chan struct{}{}, arrived: make(chan string, 1024),
		failing: map[string]failure{}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		path := strings.TrimPrefix(r.URL.Path, "/")
		_, key, isObject := strings.Cut(path, "/")
		isObject = isObject && key != ""
		c.mu.Lock()
		var gate chan struct{}
		var fail *failure
		if isObject {
			c.byMethod[r.Method]++
			if r.Method == http.MethodGet {
				for k, ch := range c.held {
					if strings.HasSuffix(key, k) {
						gate = ch
					}
				}
				for k, f := range c.failing {
					if strings.HasSuffix(key, k) {
						fail = &f
					}
				}
			}
		} else {
			c.other++
		}
		c.mu.Unlock()
		if fail != nil {
			w.Header().Set("Content-Type", "application/xml")
			w.WriteHeader(fail.status)
			io.WriteString(w, fail.body)
			return
		}
		if gate != nil {
			c.arrived <- key
			select {
			case <-gate:
			case <-r.Context().Done():
			}
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	c.addr = strings.TrimPrefix(srv.URL, "http://")
	return c
}

// snapshot is what the counter has counted so far.
type snapshot struct {
	gets, heads, all int64
}

func (c *counter) snapshot() snapshot {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := snapshot{gets: c.byMethod[http.MethodGet], heads: c.byMethod[http.MethodHead], all: c.other}
	for _, n := range c.byMethod {
		s.all += n
	}
	return s
}

// since is what was counted after before.
func (s snapshot) since(before snapshot) snapshot {
	return snapshot{gets: s.gets - before.gets, heads: s.heads - before.heads, all: s.all - before.all}
}

func (s snapshot) String() string {
	return fmt.Sprintf("%d GET, %d HEAD, %d requests in all", s.gets, s.heads, s.all)
}

// hold makes GETs of objects whose key ends with key wait until release
// is called.
func (c *counter) hold(key string) (release func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	ch := make(chan struct{})
	c.held[key] = ch
	var once sync.Once
	return func() {
		once.Do(func() {
			c.mu.Lock()
			delete(c.held, key)
			c.mu.Unlock()
			close(ch)
		})
	}
}

// fail makes GETs of objects whose key ends with key answer status and
// body (an S3 error document) until the returned function is called.
func (c *counter) fail(key string, status int, body string) (stop func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.failing[key] = failure{status: status, body: body}
	return func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		delete(c.failing, key)
	}
}

// gateway is a running `zarrgw serve` on a free loopback port.
type gateway struct{ *bin.Gateway }

// writeConfig writes a configuration file into a fresh directory.
func writeConfig(t *testing.T, config string) string {
	t.Helper()
	file := filepath.Join(t.TempDir(), "zarrgw.hcl")
	if err := os.WriteFile(file, []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	return file
}

// startGateway serves the configuration file until the test ends (or
// Stop), on a free port.
func startGateway(t *testing.T, file string, env []string) *gateway {
	t.Helper()
	return &gateway{bin.Serve(t, zarrgwBin, file, env...)}
}

// client is the tests' HTTP client; every request has a deadline against
// a hang.
var client = &http.Client{Timeout: 60 * time.Second}

// do sends a request and returns the status, the body and the headers.
func do(t testing.TB, method, u string, body []byte, header ...string) (int, []byte, http.Header) {
	t.Helper()
	code, data, h, err := tryDo(method, u, body, header...)
	if err != nil {
		t.Fatalf("%s %s: %v", method, u, err)
	}
	return code, data, h
}

func tryDo(method, u string, body []byte, header ...string) (int, []byte, http.Header, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequest(method, u, rd)
	if err != nil {
		return 0, nil, nil, err
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, nil, nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	return resp.StatusCode, data, resp.Header, err
}

// get reads u and fails the test unless it answers 200.
func get(t testing.TB, u string) []byte {
	t.Helper()
	code, data, _ := do(t, http.MethodGet, u, nil)
	if code != http.StatusOK {
		t.Fatalf("GET %s: %d %s", u, code, data)
	}
	return data
}

// put writes body to u and fails the test unless it answers 2xx; it
// returns the ETag.
func put(t testing.TB, u string, body []byte, header ...string) string {
	t.Helper()
	code, data, h := do(t, http.MethodPut, u, body, header...)
	if code/100 != 2 {
		t.Fatalf("PUT %s: %d %s", u, code, data)
	}
	return h.Get("ETag")
}

// sample is one line of the gateway's /metrics: a series and its value.
type sample struct {
	name   string
	labels map[string]string
	value  float64
}

var (
	sampleLine = regexp.MustCompile(`^(\w+)\{(.*)\} (\S+)$`)
	labelPair  = regexp.MustCompile(`(\w+)="([^"]*)"`)
)

// metrics reads the gateway's /metrics (the series with labels).
func (g *gateway) metrics(t testing.TB) []sample {
	t.Helper()
	var out []sample
	for _, line := range strings.Split(string(get(t, g.URL+"/metrics")), "\n") {
		m := sampleLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		v, err := strconv.ParseFloat(m[3], 64)
		if err != nil {
			t.Fatalf("metrics: %q", line)
		}
		s := sample{name: m[1], labels: map[string]string{}, value: v}
		for _, l := range labelPair.FindAllStringSubmatch(m[2], -1) {
			s.labels[l[1]] = l[2]
		}
		out = append(out, s)
	}
	return out
}

// sum adds the values of the series called name whose labels include
// every pair of match (label, value, label, value, ...).
func sum(samples []sample, name string, match ...string) int64 {
	var n float64
next:
	for _, s := range samples {
		if s.name != name {
			continue
		}
		for i := 0; i+1 < len(match); i += 2 {
			if s.labels[match[i]] != match[i+1] {
				continue next
			}
		}
		n += s.value
	}
	if n != math.Trunc(n) {
		panic(fmt.Sprintf("%s: %v is not a count", name, n))
	}
	return int64(n)
}

// storeCalls is the count of zarrgw_store_call_duration_seconds by
// operation for the store named (store.s3.slow): the store's calls below
// every transformer.
func (g *gateway) storeCalls(t testing.TB, storeName string) map[string]int64 {
	t.Helper()
	out := map[string]int64{}
	for _, s := range g.metrics(t) {
		if s.name == "zarrgw_store_call_duration_seconds_count" && s.labels["store"] == storeName {
			out[s.labels["op"]] += sum([]sample{s}, s.name)
		}
	}
	return out
}

// cacheReads is zarrgw_store_cache_reads_total of a dataset by result
// (hit, disk_hit, negative_hit, miss, coalesced), and its disk tier's
// damaged entries under "corrupt".
func (g *gateway) cacheReads(t testing.TB, dataset string) calls {
	t.Helper()
	samples := g.metrics(t)
	out := calls{}
	for _, r := range []string{"hit", "disk_hit", "negative_hit", "miss", "coalesced"} {
		out[r] = sum(samples, "zarrgw_store_cache_reads_total", "dataset", dataset, "result", r)
	}
	out["corrupt"] = sum(samples, "zarrgw_store_cache_disk_corrupt_total", "dataset", dataset)
	return out
}

// calls is a store's calls by operation, from the gateway's metrics.
type calls map[string]int64

func (c calls) since(before calls) calls {
	out := calls{}
	for op, n := range c {
		if d := n - before[op]; d != 0 {
			out[op] = d
		}
	}
	return out
}

// gets are the reads of bytes: Get and the copy-free GetInto.
func (c calls) gets() int64 { return c["get"] + c["get_into"] }

func (c calls) total() int64 {
	var n int64
	for _, v := range c {
		n += v
	}
	return n
}

func (g *gateway) slowCalls(t testing.TB) calls { return calls(g.storeCalls(t, "store.s3.slow")) }

// forEach runs fn for 0..n-1 on workers goroutines and fails the test on
// the first error.
func forEach(t *testing.T, n, workers int, fn func(i int) error) {
	t.Helper()
	var next atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for range workers {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				if err := fn(i); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

// waitFor polls cond every interval until it holds, failing the test past
// bound (only a hang reaches it).
func waitFor(t *testing.T, what string, bound, interval time.Duration, cond func() bool) time.Duration {
	t.Helper()
	start := time.Now()
	for !cond() {
		if time.Since(start) > bound {
			t.Fatalf("%s: not within %v", what, bound)
		}
		time.Sleep(interval)
	}
	return time.Since(start)
}
