// Package security runs `zarrgw serve` as a process and attacks it from
// outside as an unauthenticated client would, measuring what it costs the
// server: a flood of the largest pictures must not take its memory beyond
// the budget of expensive requests, and the cheap requests of the key API
// must go on being answered meanwhile.
package security

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	bin "github.com/zarrgw/zarrgw/tests/support/binary"
	"github.com/zarrgw/zarrgw/tests/support/servers"
)

var binary string

func TestMain(m *testing.M) { bin.Main(m, &binary) }

const (
	// budget is the server's expensive_memory, in the configuration below.
	budget = 512 << 20
	// headroom is what the process may hold beyond the budget: the Go
	// runtime, the caches, the connections of the flood.
	headroom = 200 << 20
	// picture is the largest picture there is, of the whole array.
	picture = "/d/public/big?format=png&max_pixels=67108864"
)

// budgetLines are the server block's bounds: expensive_memory as above,
// expensive_requests and expensive_wait at their defaults.
const budgetLines = `expensive_memory = "512MiB"`

// configFor is a configuration with one public dataset in root.
func configFor(root string) string {
	return fmt.Sprintf(`store "fs" "local" {
  root        = %q
  create_root = true
}
dataset "public" {
  store = store.fs.local
}
server {
  listen = "127.0.0.1:0"
  %s
}
`, root, budgetLines)
}

// A flood of the largest pictures of a 100 000 x 100 000 float32 array
// with no chunk written (each would hold gigabytes without a budget):
// what does not fit in the budget is refused with 503 and Retry-After,
// the rest is drawn, the server's peak memory stays within the budget,
// and reads of metadata are answered all along.
func TestPictureFlood(t *testing.T) {
	for _, n := range []int{32, 100} {
		t.Run(strconv.Itoa(n), func(t *testing.T) {
			s := startServer(t, bigArray(t))
			guard := watchMemory(t, s, budget+headroom)
			flood := floodPictures(s.url, n)
			small := keepReading(s.url+"/d/public/big/zarr.json", flood.done)
			flood.wait()
			peak, killed := guard.stop()
			if killed {
				t.Fatalf("the server's RSS reached %d MB, over the budget (%d MB) + %d MB: killed (%d pictures drawn before)",
					peak>>20, budget>>20, headroom>>20, flood.count(200))
			}
			t.Logf("%d pictures: %d drawn, %d refused; peak RSS %d MB (budget %d MB)", n, flood.count(200), flood.count(503), peak>>20, budget>>20)
			if peak > budget+headroom {
				t.Errorf("peak RSS %d MB, over the budget (%d MB) + %d MB", peak>>20, budget>>20, headroom>>20)
			}
			flood.check(t)
			small.check(t)
		})
	}
}

// bigArray makes the array with `zarrgw create` (its metadata only) and
// returns the configuration that serves it.
func bigArray(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	config := filepath.Join(dir, "zarrgw.hcl")
	if err := os.WriteFile(config, []byte(configFor(filepath.Join(dir, "data"))), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(binary, "create", "--config", config, "public", "--path", "big",
		"--shape", "100000,100000", "--chunks", "1000,1000", "--dtype", "float32")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("zarrgw create: %v\n%s", err, out)
	}
	return config
}

// flood is n concurrent requests for the largest picture.
type flood struct {
	done     chan struct{} // closed when every request is answered
	mu       sync.Mutex
	statuses map[int]int
	problems []string
}

func floodPictures(url string, n int) *flood {
	f := &flood{done: make(chan struct{}), statuses: map[int]int{}}
	// generous: a drawing may take long on a busy machine; only a hang
	// should fail
	client := &http.Client{Timeout: 5 * time.Minute}
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() { f.record(client.Get(url + picture)) })
	}
	go func() { wg.Wait(); close(f.done) }()
	return f
}

// record keeps a response's status, and what is wrong with it: anything
// but 200 or 503, a 503 without Retry-After.
func (f *flood) record(resp *http.Response, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err != nil {
		f.problems = append(f.problems, err.Error())
		return
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	f.statuses[resp.StatusCode]++
	switch {
	case err != nil:
		f.problems = append(f.problems, fmt.Sprintf("%d, reading the body: %v", resp.StatusCode, err))
	case resp.StatusCode == 503 && resp.Header.Get("Retry-After") == "":
		f.problems = append(f.problems, "503 without Retry-After: "+string(body))
	case resp.StatusCode != 200 && resp.StatusCode != 503:
		f.problems = append(f.problems, fmt.Sprintf("%d: %s", resp.StatusCode, body))
	}
}

func (f *flood) wait() { <-f.done }

func (f *flood) count(status int) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.statuses[status]
}

func (f *flood) check(t *testing.T) {
	t.Helper()
	for _, p := range f.problems {
		t.Errorf("a picture: %s", p)
	}
	if f.count(503) == 0 {
		t.Errorf("no picture was refused: %v", f.statuses)
	}
	if f.count(200) == 0 {
		t.Errorf("no picture was drawn: %v", f.statuses)
	}
}

// reader reads a small document again and again until the flood is
// over (and at least a few times), each read bounded by a generous
// timeout.
type reader struct {
	finished chan struct{}
	reads    int
	failures []string
}

const minSmallReads = 5

func keepReading(url string, flooding <-chan struct{}) *reader {
	r := &reader{finished: make(chan struct{})}
	client := &http.Client{Timeout: 30 * time.Second}
	go func() {
		defer close(r.finished)
		for r.reads < minSmallReads || !closed(flooding) {
			r.reads++
			if err := getOK(client, url); err != nil {
				r.failures = append(r.failures, err.Error())
			}
		}
	}()
	return r
}

func getOK(client *http.Client, url string) error {
	resp, err := client.Get(url)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err == nil && resp.StatusCode != 200 {
		err = fmt.Errorf("%d: %s", resp.StatusCode, body)
	}
	return err
}

func closed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

func (r *reader) check(t *testing.T) {
	t.Helper()
	<-r.finished
	for _, f := range r.failures {
		t.Errorf("reading zarr.json during the flood: %s", f)
	}
	t.Logf("%d reads of zarr.json during the flood", r.reads)
}

// guard samples the server's resident memory from /proc while it runs,
// and kills it as soon as it exceeds the limit: the test has failed by
// then, and the machine must not run out of memory.
type guard struct {
	s       *server
	limit   int64
	stopped chan struct{}
	done    chan struct{}
	over    int64 // the RSS seen over the limit, 0 if none
}

func watchMemory(t *testing.T, s *server, limit int64) *guard {
	g := &guard{s: s, limit: limit, stopped: make(chan struct{}), done: make(chan struct{})}
	go g.run(t)
	return g
}

func (g *guard) run(t *testing.T) {
	defer close(g.done)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-g.stopped:
			return
		case <-tick.C:
		}
		rss, err := status(g.s.cmd.Process.Pid, "VmRSS")
		if err == nil && rss > g.limit {
			g.over = rss
			g.s.cmd.Process.Kill()
			return
		}
	}
}

// stop ends the sampling and returns the server's peak RSS (VmHWM), or
// what it had reached when the guard killed it.
func (g *guard) stop() (peak int64, killed bool) {
	close(g.stopped)
	<-g.done
	if g.over > 0 {
		return g.over, true
	}
	peak, err := status(g.s.cmd.Process.Pid, "VmHWM")
	if err != nil {
		panic(fmt.Sprintf("reading the server's peak RSS: %v", err))
	}
	return peak, false
}

// status reads a size field (kB) of /proc/PID/status, in bytes.
func status(pid int, field string) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10, err
		}
	}
	return 0, fmt.Errorf("no %s in /proc/%d/status", field, pid)
}

// server is a running `zarrgw serve` on a free loopback port.
type server struct {
	url string
	cmd *exec.Cmd
	log *servers.Log
}

var servingLine = regexp.MustCompile(`zarrgw: serving \d+ datasets at (http://[0-9.:]+)/d/`)

// startServer serves config until the test ends; the kernel picks the
// port, which the server's log names.
func startServer(t *testing.T, config string) *server {
	t.Helper()
	cmd := exec.Command(binary, "serve", "-c", config, "--listen", "127.0.0.1:0")
	pipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &server{cmd: cmd, log: &servers.Log{}}
	found := make(chan string, 1)
	go scanLog(pipe, s.log, found)
	t.Cleanup(func() { s.stop(t) })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	select {
	case s.url = <-found:
	case <-ctx.Done():
		t.Fatalf("zarrgw serve did not start within 30s; its log:\n%s", s.log)
	}
	return s
}

// scanLog copies the server's log, sending the address it serves at.
func scanLog(pipe io.Reader, log io.Writer, found chan<- string) {
	sc := bufio.NewScanner(pipe)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		fmt.Fprintln(log, line)
		if m := servingLine.FindStringSubmatch(line); m != nil {
			select {
			case found <- m[1]:
			default:
			}
		}
	}
}

// stop ends the server: SIGTERM, then SIGKILL if it lingers past its
// shutdown_timeout.
func (s *server) stop(t *testing.T) {
	bin.Stop(t, s.cmd, s.log)
}
