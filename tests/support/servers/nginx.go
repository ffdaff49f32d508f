package servers

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Nginx is a running nginx (Debian's, /usr/sbin/nginx) in front of
// backends as a load balancer: one upstream group, round robin, with
// keep-alive connections to the backends and nginx's passive health
// checks only (a backend that fails a request is left out for a while).
// It runs as the test's user, not as a daemon, from a directory of the
// test's that holds its configuration, pid file, logs and temporary
// files, on a free loopback port; it is stopped by its PID when the test
// ends, and its logs are shown if the test failed.
//
// Which requests it passes to another backend when one fails (nginx's
// proxy_next_upstream) is the point of a load balancer in front of
// replicas, and is chosen per kind of request:
//
//   - Reads (GET, HEAD) and unconditional writes (PUT, DELETE without
//     If-Match or If-None-Match) are retried on the next backend on
//     "error" and "timeout": the backend could not be connected to, the
//     connection broke while the request was sent or before the answer's
//     header came, or no answer came in time. Once the body is read
//     (proxy_request_buffering, on), nginx can send it again. A read has
//     no effect, so a retried read is only a later read. An unconditional
//     PUT is idempotent: sent twice, it leaves what sending it once does.
//     (A register that another writer changes between the two attempts
//     sees the value come back; a client that needs exactly-once writes
//     uses If-Match, below.) An answer the backend gave, a 5xx among
//     them, is passed on (no http_5xx conditions): the gateway's 502 and
//     504 speak of the store, which every replica shares, and its 503s
//     carry a Retry-After for the client.
//   - Conditional writes (PUT, POST, DELETE, PATCH with If-Match or
//     If-None-Match) are never retried (proxy_next_upstream off). A
//     compare-and-swap whose first attempt was applied before the
//     connection broke would, sent again, be refused with 412: the client
//     would be told its write failed when it took effect. nginx tells
//     "could not connect" (safe to retry) from "sent, then the connection
//     broke" only for POST, PATCH and LOCK; for PUT its conditions cannot,
//     so a conditional write meeting a backend that just went away is
//     answered 502: an unknown outcome, which the client learns by
//     reading again.
//   - POST, PATCH and LOCK without preconditions keep nginx's default:
//     retried only when they were not sent (no non_idempotent).
//
// With NginxOptions.NoRetry nothing is retried, as with a balancer that
// never retries: what the retries are for shows as failed requests.
type Nginx struct {
	// URL is its base URL, http://127.0.0.1:PORT.
	URL string
	// Addr is its host:port.
	Addr string

	bin, dir   string
	port       int
	backends   []string
	opts       NginxOptions
	generation int
	proc       *process
}

// NginxOptions change how nginx balances.
type NginxOptions struct {
	// NoRetry passes no request to another backend (proxy_next_upstream
	// off everywhere).
	NoRetry bool
}

// nginxGeneration is the location that answers which configuration
// nginx serves: the generation, counted from 1 and raised by each
// Reconfigure.
const nginxGeneration = "/nginx-generation"

// nginxPath finds nginx: $NGINX, Debian's /usr/sbin/nginx, or on PATH.
func nginxPath() (string, error) {
	if p := os.Getenv("NGINX"); p != "" {
		return p, nil
	}
	if _, err := os.Stat("/usr/sbin/nginx"); err == nil {
		return "/usr/sbin/nginx", nil
	}
	if p, err := exec.LookPath("nginx"); err == nil {
		return p, nil
	}
	return "", fmt.Errorf("nginx is not installed (apt-get install --no-install-recommends nginx)")
}

// StartNginx starts nginx in front of backends (host:port each) and
// stops it when the test ends.
func StartNginx(t testing.TB, backends []string, opts NginxOptions) *Nginx {
	t.Helper()
	if len(backends) == 0 {
		t.Fatal("nginx: no backends")
	}
	bin, err := nginxPath()
	if err != nil {
		Unavailable(t, "%v", err)
	}
	n := &Nginx{bin: bin, dir: t.TempDir(), backends: backends, opts: opts, generation: 1}
	if err := os.Mkdir(filepath.Join(n.dir, "tmp"), 0o700); err != nil {
		t.Fatal(err)
	}
	command := func(port int) *exec.Cmd {
		n.port = port
		if err := os.WriteFile(n.confPath(), n.config(), 0o600); err != nil {
			panic(err) // a fresh temporary directory of the test's
		}
		return exec.Command(bin, "-e", "stderr", "-p", n.dir+"/", "-c", n.confPath(), "-g", "daemon off;")
	}
	ready := func(addr string) func(context.Context) error {
		return func(ctx context.Context) error { return n.serves(ctx, addr, 1) }
	}
	n.proc, n.Addr = launch(t, "nginx", time.Minute, command, ready)
	n.URL = "http://" + n.Addr
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("nginx's error log (%s):\n%s", filepath.Join(n.dir, "error.log"), tailOf(n.ErrorLog(), 4000))
			t.Logf("nginx's access log, the last lines (method, path, status, backends tried, their statuses, precondition):\n%s",
				tailOf(n.accessLogText(), 4000))
		}
	})
	return n
}

// PID returns the nginx master process's ID.
func (n *Nginx) PID() int { return n.proc.PID() }

// Stop stops nginx (SIGTERM to its process group, SIGKILL past 3 s).
func (n *Nginx) Stop() { n.proc.stop() }

// Reconfigure makes nginx balance over backends with opts, as a reload
// does (SIGHUP to the master: new workers start with the new
// configuration, the old ones finish the requests they hold and exit).
// It returns once the new configuration answers and every worker of the
// old one has exited, bounded against a hang.
func (n *Nginx) Reconfigure(t testing.TB, backends []string, opts NginxOptions) {
	t.Helper()
	if len(backends) == 0 {
		t.Fatal("nginx: no backends")
	}
	old, err := childrenOf(n.PID())
	if err != nil {
		t.Fatalf("nginx's workers: %v", err)
	}
	n.backends, n.opts = backends, opts
	n.generation++
	if err := os.WriteFile(n.confPath(), n.config(), 0o600); err != nil {
		t.Fatal(err)
	}
	check := exec.Command(n.bin, "-t", "-q", "-e", "stderr", "-p", n.dir+"/", "-c", n.confPath(), "-g", "daemon off;")
	if out, err := check.CombinedOutput(); err != nil {
		t.Fatalf("nginx -t refuses the new configuration: %v\n%s", err, out)
	}
	if err := syscall.Kill(n.PID(), syscall.SIGHUP); err != nil {
		t.Fatalf("reload nginx (SIGHUP to %d): %v", n.PID(), err)
	}
	deadline := time.Now().Add(time.Minute)
	for {
		err := n.serves(context.Background(), n.Addr, n.generation)
		if err == nil {
			err = exited(n.PID(), old)
		}
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("nginx did not take its configuration %d within a minute: %v; its error log:\n%s",
				n.generation, err, tailOf(n.ErrorLog(), 4000))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// serves asks nginx at addr, on a connection of its own, which
// configuration it serves, and fails unless it is generation.
func (n *Nginx) serves(ctx context.Context, addr string, generation int) error {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+nginxGeneration, nil)
	if err != nil {
		return err
	}
	req.Close = true
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if got := strings.TrimSpace(string(body)); resp.StatusCode != http.StatusOK || got != strconv.Itoa(generation) {
		return fmt.Errorf("GET %s: %s %q, want configuration %d", nginxGeneration, resp.Status, got, generation)
	}
	return nil
}

func (n *Nginx) confPath() string { return filepath.Join(n.dir, "nginx.conf") }

// config is nginx's configuration: one worker (so the round robin is one
// sequence: each backend gets every len(backends)-th request), logs and
// temporary files in n.dir, and the balancing the type's comment
// explains.
func (n *Nginx) config() []byte {
	var c strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&c, format+"\n", args...) }
	if os.Geteuid() == 0 {
		// nginx started by root runs its workers as another user unless
		// told; they must read the test's directory.
		p("user root;")
	}
	p("worker_processes 1;")
	p("pid %s;", filepath.Join(n.dir, "nginx.pid"))
	p("lock_file %s;", filepath.Join(n.dir, "nginx.lock"))
	p("error_log %s notice;", filepath.Join(n.dir, "error.log"))
	p("events { worker_connections 1024; }")
	p("http {")
	p("  log_format balancer '$request_method\\t$uri\\t$status\\t$upstream_addr\\t$upstream_status\\t$precondition_write';")
	p("  access_log %s balancer;", filepath.Join(n.dir, "access.log"))
	for _, tmp := range []string{"client_body", "proxy", "fastcgi", "uwsgi", "scgi"} {
		p("  %s_temp_path %s;", tmp, filepath.Join(n.dir, "tmp", tmp))
	}
	p("  client_max_body_size 64m;")
	p("  client_body_buffer_size 1m;")
	p("  keepalive_timeout 75s;")
	p("  keepalive_requests 100000;")
	// A write with a precondition: a compare-and-swap, never retried.
	p(`  map "$request_method:$http_if_match$http_if_none_match" $precondition_write {`)
	p("    default 0;")
	p(`    "~^(PUT|POST|DELETE|PATCH):." 1;`)
	p("  }")
	p("  upstream zarrgw {")
	for _, b := range n.backends {
		// Passive health checks: one failure leaves a backend out for 5 s,
		// then a request tries it again.
		p("    server %s max_fails=1 fail_timeout=5s;", b)
	}
	// Idle connections to the backends are closed by nginx after 30 s,
	// before the gateway's idle_timeout (2 min) would close them under it.
	p("    keepalive 32;")
	p("    keepalive_timeout 30s;")
	p("    keepalive_requests 100000;")
	p("  }")
	p("  server {")
	p("    listen 127.0.0.1:%d;", n.port)
	p("    location = %s { return 200 \"%d\\n\"; }", nginxGeneration, n.generation)
	retry := "error timeout"
	if n.opts.NoRetry {
		retry = "off"
	}
	proxy := func(nextUpstream string) {
		p("      proxy_pass http://zarrgw;")
		p("      proxy_http_version 1.1;")
		p(`      proxy_set_header Connection "";`)
		p("      proxy_set_header Host $http_host;")
		p("      proxy_request_buffering on;")
		p("      proxy_connect_timeout 5s;")
		p("      proxy_read_timeout 60s;")
		p("      proxy_send_timeout 60s;")
		p("      proxy_next_upstream %s;", nextUpstream)
	}
	// proxy_next_upstream takes no variables: a conditional write goes to
	// a location of its own, by the error_page redirect (made before the
	// body is read, which the named location then reads and sends).
	p("    location / {")
	proxy(retry)
	p("      error_page 418 = @precondition_write;")
	p("      if ($precondition_write) { return 418; }")
	p("    }")
	p("    location @precondition_write {")
	proxy("off")
	p("    }")
	p("  }")
	p("}")
	return []byte(c.String())
}

// ErrorLog is what nginx wrote to its error log so far.
func (n *Nginx) ErrorLog() string {
	b, err := os.ReadFile(filepath.Join(n.dir, "error.log"))
	if err != nil {
		return fmt.Sprintf("(%v)", err)
	}
	return string(b)
}

func (n *Nginx) accessLogText() string {
	b, err := os.ReadFile(filepath.Join(n.dir, "access.log"))
	if err != nil {
		return fmt.Sprintf("(%v)", err)
	}
	return string(b)
}

// NginxRequest is a line of nginx's access log: a request it answered.
type NginxRequest struct {
	Method, Path string
	// Status is what the client got.
	Status int
	// Backends are the backends tried, in order, and Statuses what each
	// answered (502 for one that could not be reached, 504 for one that
	// timed out): more than one when nginx retried.
	Backends, Statuses []string
	// Precondition says the request was a write with If-Match or
	// If-None-Match, which is never retried.
	Precondition bool
}

// Retried reports whether nginx passed the request to more than one
// backend.
func (r NginxRequest) Retried() bool { return len(r.Backends) > 1 }

// Requests are the requests nginx answered so far (it writes a line when
// it has answered), its own configuration probes left out.
func (n *Nginx) Requests(t testing.TB) []NginxRequest {
	t.Helper()
	f, err := os.Open(filepath.Join(n.dir, "access.log"))
	if err != nil {
		t.Fatalf("nginx's access log: %v", err)
	}
	defer f.Close()
	var out []NginxRequest
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	for sc.Scan() {
		fields := strings.Split(sc.Text(), "\t")
		if len(fields) != 6 {
			t.Fatalf("nginx's access log: a line of %d fields: %q", len(fields), sc.Text())
		}
		if fields[1] == nginxGeneration {
			continue
		}
		status, err := strconv.Atoi(fields[2])
		if err != nil {
			t.Fatalf("nginx's access log: status %q", fields[2])
		}
		out = append(out, NginxRequest{Method: fields[0], Path: fields[1], Status: status,
			Backends: splitList(fields[3]), Statuses: splitList(fields[4]), Precondition: fields[5] == "1"})
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("nginx's access log: %v", err)
	}
	return out
}

// splitList splits one of nginx's lists of upstream values: ", "
// between the backends of one attempt, " : " between those of an
// internal redirect's; "-" is none.
func splitList(s string) []string {
	if s == "-" || s == "" {
		return nil
	}
	return strings.Split(strings.ReplaceAll(s, " : ", ", "), ", ")
}

// childrenOf lists the live processes (zombies left out) whose parent
// is pid.
func childrenOf(pid int) ([]int, error) {
	stats, err := filepath.Glob("/proc/[0-9]*/stat")
	if err != nil {
		return nil, err
	}
	var out []int
	for _, path := range stats {
		stat, err := os.ReadFile(path)
		if err != nil {
			continue // it ended
		}
		// pid (comm) state ppid ...: comm may hold spaces and parentheses
		fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
		if len(fields) < 2 || fields[0] == "Z" || fields[0] == "X" {
			continue
		}
		if ppid, err := strconv.Atoi(fields[1]); err == nil && ppid == pid {
			child, _ := strconv.Atoi(filepath.Base(filepath.Dir(path)))
			out = append(out, child)
		}
	}
	return out, nil
}

// exited fails while any of pids, children of parent, still runs.
func exited(parent int, pids []int) error {
	now, err := childrenOf(parent)
	if err != nil {
		return err
	}
	for _, pid := range pids {
		if slices.Contains(now, pid) {
			return fmt.Errorf("a worker of the old configuration (PID %d) still runs", pid)
		}
	}
	return nil
}

// tailOf is the end of s, at most n bytes.
func tailOf(s string, n int) string {
	if len(s) > n {
		s = "..." + s[len(s)-n:]
	}
	return strings.TrimSpace(s)
}
