// Package gateway runs `zarrgw serve` as a process and reads through it
// with real clients: zarrita.js (FetchStore) and Debian's python3-zarr
// (fsspec's HTTP filesystem), over the shared fixtures and arrays zarrgw
// wrote; and checks how it fails (a store plugin killed under it, a
// client that goes away mid-download).
package gateway

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	bin "github.com/zarrgw/zarrgw/tests/support/binary"
	"github.com/zarrgw/zarrgw/tests/support/servers"
)

var binary string

func TestMain(m *testing.M) { bin.Main(m, &binary) }

// server is a running `zarrgw serve` on a free loopback port.
type server struct {
	url   string // http://127.0.0.1:PORT
	s3url string // the S3 API's, when the configuration has an s3 block
	cmd   *exec.Cmd
	log   *servers.Log
}

var (
	servingLine = regexp.MustCompile(`zarrgw: serving \d+ datasets at (http://[0-9.:]+)/d/`)
	s3Line      = regexp.MustCompile(`zarrgw: S3 API at (http://[0-9.:]+) `)
)

// startServer writes config to a file and serves it until the test ends,
// when the process is stopped with SIGTERM (and killed if it lingers).
func startServer(t *testing.T, config string, env ...string) *server {
	t.Helper()
	file := filepath.Join(t.TempDir(), "zarrgw.hcl")
	if err := os.WriteFile(file, []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"serve", "-c", file, "--listen", "127.0.0.1:0"}
	withS3 := strings.Contains(config, "s3 {")
	if withS3 {
		args = append(args, "--s3-listen", "127.0.0.1:0")
	}
	cmd := exec.Command(binary, args...)
	cmd.Env = append(os.Environ(), env...)
	pipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &server{cmd: cmd, log: &servers.Log{}}
	found, foundS3 := make(chan string, 1), make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pipe)
		sc.Buffer(make([]byte, 1<<16), 1<<20)
		for sc.Scan() {
			line := sc.Text()
			fmt.Fprintln(s.log, line)
			for re, ch := range map[*regexp.Regexp]chan string{servingLine: found, s3Line: foundS3} {
				if m := re.FindStringSubmatch(line); m != nil {
					select {
					case ch <- m[1]:
					default:
					}
				}
			}
		}
	}()
	t.Cleanup(func() { s.stop(t) })
	timeout := time.After(30 * time.Second)
	for s.url == "" || withS3 && s.s3url == "" {
		select {
		case s.url = <-found:
		case s.s3url = <-foundS3:
		case <-timeout:
			t.Fatalf("zarrgw serve did not start within 30s; its log:\n%s", s.log)
		}
	}
	return s
}

// stop ends the server by its PID: SIGTERM, then SIGKILL after a minute (longer than the default shutdown_timeout, 30s, that a request in flight may take).
func (s *server) stop(t *testing.T) {
	if s.cmd.ProcessState != nil {
		return
	}
	if err := bin.Stop(t, s.cmd, s.log); err != nil {
		t.Logf("zarrgw serve ended: %v", err)
	}
}

// get fetches a URL of the server, with cookies if given (the pages
// carry a token in one), and returns the status and body.
func (s *server) get(t *testing.T, path string, cookies ...*http.Cookie) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, s.url+path, nil)
	for _, c := range cookies {
		req.AddCookie(c)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	defer resp.Body.Close()
	var b strings.Builder
	bufio.NewReader(resp.Body).WriteTo(&b)
	return resp.StatusCode, b.String()
}
