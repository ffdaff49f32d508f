package security

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	bin "github.com/zarrgw/zarrgw/tests/support/binary"
	"github.com/zarrgw/zarrgw/tests/support/servers"
)

// The anonymous rate limit of `zarrgw serve` seen from many IPv6
// addresses: the gateway runs in a network namespace of its own
// (unshare -rn: a user namespace makes the caller root there, so no
// privilege is needed and the machine's network is not touched), whose
// loopback holds addresses of two /64s; curl, run in that namespace with
// nsenter, sends each request from the address asked (--interface).

// The addresses of the namespace's loopback: the gateway's, four
// clients in its /64, one in another /64.
const (
	v6Gateway = "2001:db8:1::1"
	v6Other   = "2001:db8:2::a"
)

var v6SamePrefix = []string{"2001:db8:1::a", "2001:db8:1::b", "2001:db8:1:0:ffff:ffff:ffff:fffe", "2001:db8:1:0:1234::7"}

// Anonymous clients are limited per /64: once the burst is spent from
// one address, every other address of the /64 is refused too (429 with
// Retry-After), while a client of another /64, and each IPv4 address, has
// a bucket of its own.
func TestAnonymousRateLimitIPv6Prefix(t *testing.T) {
	const burst = 3
	dir := t.TempDir()
	root := filepath.Join(dir, "data")
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "small"), []byte("a small value"), 0o644); err != nil {
		t.Fatal(err)
	}
	config := filepath.Join(dir, "zarrgw.hcl")
	hcl := fmt.Sprintf(`store "fs" "local" {
  root = %q
}
dataset "public" {
  store = store.fs.local
}
server {
  listen = "[::]:0"
  anonymous_rate_limit {
    requests_per_second = 0.001
    burst               = %d
  }
}
`, root, burst)
	if err := os.WriteFile(config, []byte(hcl), 0o644); err != nil {
		t.Fatal(err)
	}
	ns := startInNetns(t, config, append([]string{v6Gateway, v6Other}, v6SamePrefix...))
	v6 := fmt.Sprintf("http://[%s]:%d/d/public/small", v6Gateway, ns.port)
	v4 := fmt.Sprintf("http://127.0.0.1:%d/d/public/small", ns.port)

	for i := range burst {
		ns.want(t, v6SamePrefix[i%2], v6, 200)
	}
	for _, from := range v6SamePrefix {
		ns.want(t, from, v6, 429)
	}
	for range burst {
		ns.want(t, v6Other, v6, 200)
	}
	ns.want(t, v6Other, v6, 429)
	for _, from := range []string{"127.0.0.2", "127.0.0.3"} {
		for range burst {
			ns.want(t, from, v4, 200)
		}
		ns.want(t, from, v4, 429)
	}
}

// netnsGateway is a `zarrgw serve` in a network namespace of its own.
type netnsGateway struct {
	cmd  *exec.Cmd
	log  *servers.Log
	port int
}

var netnsServing = regexp.MustCompile(`zarrgw: serving \d+ datasets at http://\S+:(\d+)/d/`)

// startInNetns serves config in a new network namespace whose loopback
// holds addrs (IPv6, without duplicate address detection, so they are
// usable at once), listening on every address of it.
func startInNetns(t *testing.T, config string, addrs []string) *netnsGateway {
	t.Helper()
	for _, tool := range []string{"/usr/bin/unshare", "/usr/bin/nsenter", "/usr/bin/curl"} {
		if _, err := os.Stat(tool); err != nil {
			servers.Unavailable(t, "%s: %v", tool, err)
		}
	}
	ip, err := exec.LookPath("ip")
	if err != nil {
		servers.Unavailable(t, "ip (iproute2): %v", err)
	}
	script := ip + " link set lo up"
	for _, a := range addrs {
		script += fmt.Sprintf(" && %s -6 addr add %s/64 dev lo nodad", ip, a)
	}
	script += ` && exec "$1" serve -c "$2" --listen "[::]:0"`
	probe := exec.Command("/usr/bin/unshare", "-rn", "true")
	if out, err := probe.CombinedOutput(); err != nil {
		servers.Unavailable(t, "a network namespace (unshare -rn): %v: %s", err, out)
	}
	cmd := exec.Command("/usr/bin/unshare", "-rn", "/bin/sh", "-c", script, "sh", binary, config)
	pipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout = cmd.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	g := &netnsGateway{cmd: cmd, log: &servers.Log{}}
	found, ended := make(chan int, 1), make(chan struct{})
	go func() {
		defer close(ended)
		sc := bufio.NewScanner(pipe)
		for sc.Scan() {
			fmt.Fprintln(g.log, sc.Text())
			if m := netnsServing.FindStringSubmatch(sc.Text()); m != nil {
				port, _ := strconv.Atoi(m[1])
				select {
				case found <- port:
				default:
				}
			}
		}
	}()
	t.Cleanup(func() { bin.Stop(t, cmd, g.log) })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	select {
	case g.port = <-found:
	case <-ended:
		t.Fatalf("zarrgw serve in a network namespace ended; its log:\n%s", g.log)
	case <-ctx.Done():
		t.Fatalf("zarrgw serve in a network namespace did not start within 30s; its log:\n%s", g.log)
	}
	return g
}

// want sends a GET of url from the address from, inside the gateway's
// namespace, and checks its status (and Retry-After on a 429).
func (g *netnsGateway) want(t *testing.T, from, url string, status int) {
	t.Helper()
	cmd := exec.Command("/usr/bin/nsenter", "-t", strconv.Itoa(g.cmd.Process.Pid), "-U", "-n",
		"/usr/bin/curl", "-sS", "-g", "--max-time", "60", "-o", "/dev/null",
		"-w", "%{http_code} %header{retry-after}", "--interface", from, url)
	out, err := cmd.Output()
	if err != nil {
		var stderr string
		if exit, ok := err.(*exec.ExitError); ok {
			stderr = string(exit.Stderr)
		}
		t.Fatalf("curl from %s: %v %s\nthe gateway's log:\n%s", from, err, stderr, g.log)
	}
	code, retry, _ := strings.Cut(strings.TrimSpace(string(out)), " ")
	if code != strconv.Itoa(status) {
		t.Fatalf("GET %s from %s: %s, want %d", url, from, out, status)
	}
	if status == 429 && retry == "" {
		t.Fatalf("GET %s from %s: 429 without Retry-After", url, from)
	}
}
