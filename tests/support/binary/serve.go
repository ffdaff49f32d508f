package binary

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"syscall"
	"testing"
	"time"

	"github.com/zarrgw/zarrgw/tests/support/servers"
)

// Gateway is a `zarrgw serve` the test started: its key API's URL, its
// S3 API's (when the configuration has an s3 block listening on port 0 or
// any), and everything it wrote to standard error.
type Gateway struct {
	URL, S3URL string
	Log        *servers.Log
	bin, file  string
	env        []string
	cmd        *exec.Cmd
	withS3     bool
}

var (
	servingLine = regexp.MustCompile(`zarrgw: serving \d+ datasets at (http://[0-9.:]+)/d/`)
	s3Line      = regexp.MustCompile(`zarrgw: S3 API at (http://[0-9.:]+) `)
)

// Serve starts `zarrgw serve -c file --listen 127.0.0.1:0` with env added
// to the test's environment, waits (by its log, bounded against a hang)
// until it serves, and stops it when the test ends.
func Serve(t testing.TB, bin, file string, env ...string) *Gateway {
	t.Helper()
	g := &Gateway{bin: bin, file: file, env: env}
	g.Start(t)
	return g
}

// ServeS3 is Serve for a configuration with an s3 block: it waits for the
// S3 API's address too.
func ServeS3(t testing.TB, bin, file string, env ...string) *Gateway {
	t.Helper()
	g := &Gateway{bin: bin, file: file, env: env, withS3: true}
	g.Start(t)
	return g
}

// Start starts the gateway again after Stop, with the same file and
// environment (new ports).
func (g *Gateway) Start(t testing.TB) {
	t.Helper()
	cmd := exec.Command(g.bin, "serve", "-c", g.file, "--listen", "127.0.0.1:0")
	cmd.Env = append(os.Environ(), g.env...)
	pipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	g.cmd, g.Log, g.URL, g.S3URL = cmd, &servers.Log{}, "", ""
	serving, s3 := make(chan string, 1), make(chan string, 1)
	ended := make(chan struct{})
	go func(log *servers.Log) {
		defer close(ended)
		sc := bufio.NewScanner(pipe)
		sc.Buffer(make([]byte, 1<<16), 1<<20)
		for sc.Scan() {
			line := sc.Text()
			fmt.Fprintln(log, line)
			for re, ch := range map[*regexp.Regexp]chan string{servingLine: serving, s3Line: s3} {
				if m := re.FindStringSubmatch(line); m != nil {
					select {
					case ch <- m[1]:
					default:
					}
				}
			}
		}
	}(g.Log)
	t.Cleanup(func() { g.Stop(t) })
	select {
	case g.URL = <-serving:
	case <-ended:
		g.Stop(t)
		t.Fatalf("zarrgw serve ended before serving; its log:\n%s", g.Log)
	case <-time.After(2 * time.Minute):
		t.Fatalf("zarrgw serve did not start within 2 minutes; its log:\n%s", g.Log)
	}
	if !g.withS3 {
		return
	}
	// the S3 API's line comes after the key API's
	select {
	case g.S3URL = <-s3:
	case <-ended:
		t.Fatalf("zarrgw serve ended before serving S3; its log:\n%s", g.Log)
	case <-time.After(time.Minute):
		t.Fatalf("zarrgw serve printed no S3 API address within a minute; its log:\n%s", g.Log)
	}
}

// Stop ends the gateway (SIGTERM; see binary.Stop); stopping one that
// ended is nothing.
func (g *Gateway) Stop(t testing.TB) {
	if g.cmd == nil || g.cmd.ProcessState != nil {
		return
	}
	if err := Stop(t, g.cmd, g.Log); err != nil {
		t.Logf("zarrgw serve ended: %v", err)
	}
}

// PID is the running gateway's process id (0 when it is not running).
func (g *Gateway) PID() int {
	if g.cmd == nil || g.cmd.Process == nil {
		return 0
	}
	return g.cmd.Process.Pid
}

// Kill ends the gateway with SIGKILL, as a crash would (no drain, nothing
// flushed), and returns once it has exited; Start starts it again.
func (g *Gateway) Kill(t testing.TB) {
	t.Helper()
	if g.cmd == nil || g.cmd.ProcessState != nil {
		t.Fatalf("zarrgw serve is not running")
	}
	if err := g.cmd.Process.Kill(); err != nil {
		t.Fatalf("SIGKILL zarrgw serve (PID %d): %v", g.cmd.Process.Pid, err)
	}
	done := make(chan error, 1)
	go func() { done <- g.cmd.Wait() }()
	select {
	case err := <-done:
		if ws, ok := g.cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() {
			t.Fatalf("zarrgw serve after SIGKILL: %v (not ended by the signal)", err)
		}
	case <-time.After(time.Minute):
		t.Fatalf("zarrgw serve (PID %d) still runs a minute after SIGKILL", g.cmd.Process.Pid)
	}
}

// Signal sends the gateway a signal (SIGTERM begins its shutdown).
func (g *Gateway) Signal(t testing.TB, sig os.Signal) {
	t.Helper()
	if err := g.cmd.Process.Signal(sig); err != nil {
		t.Fatalf("signal %v to zarrgw serve: %v", sig, err)
	}
}

// Wait waits for the gateway to exit by itself and returns what Wait
// returned; still running after bound (against a hang) is a failure.
func (g *Gateway) Wait(t testing.TB, bound time.Duration) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- g.cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-time.After(bound):
		g.cmd.Process.Kill()
		<-done
		t.Fatalf("zarrgw serve still ran %v later; its log:\n%s", bound, g.Log)
		return nil
	}
}
