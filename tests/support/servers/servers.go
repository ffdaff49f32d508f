// Package servers starts the real services that the cloud store tests run
// against: versitygw (S3 over a POSIX directory) and Azurite (Azure Blob),
// each on a free loopback port with credentials made up for the run, and
// stops them by PID when the test ends. It also serves directories over
// HTTP for the http store, and puts faults between a store and a server.
//
// A server that cannot start fails the test under CI (CI=true), with the
// reason; elsewhere the test is skipped, and the reason is printed. Install
// both with scripts/setup.sh.
package servers

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Unavailable ends a test that needs a server or a client the machine
// lacks: under CI=true the test fails with the reason; elsewhere it says
// loudly, on stderr as well, that it did not run.
func Unavailable(t testing.TB, format string, args ...any) {
	t.Helper()
	why := fmt.Sprintf(format, args...)
	if os.Getenv("CI") == "true" {
		t.Fatalf("unavailable (CI=true, so this fails): %s", why)
	}
	fmt.Fprintf(os.Stderr, "SKIP %s: unavailable: %s\n", t.Name(), why)
	t.Skipf("unavailable: %s (run scripts/setup.sh)", why)
}

// randomHex returns n random bytes in hex.
func randomHex(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand never fails on Linux
	}
	return hex.EncodeToString(b)
}

// freePort returns a loopback port that was free a moment ago.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// repoRoot is the module root, three levels above this file's directory.
func repoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "..")
}

// process is a server started for a test.
type process struct {
	cmd  *exec.Cmd
	log  *Log
	done chan struct{}
	err  error // Wait's result, once done is closed
}

// Log is what a process writes while a test reads it.
type Log struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *Log) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// String is everything written so far.
func (b *Log) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func (b *Log) tail() string {
	s := b.String()
	if len(s) > 2000 {
		s = "..." + s[len(s)-2000:]
	}
	return strings.TrimSpace(s)
}

// start runs cmd in its own process group, with its output kept for error
// messages.
func start(cmd *exec.Cmd) (*process, error) {
	p := &process{cmd: cmd, log: &Log{}, done: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = p.log, p.log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	go func() {
		p.err = cmd.Wait()
		close(p.done)
	}()
	return p, nil
}

// stop ends the server's process group by its PID: SIGTERM, then SIGKILL
// if it has not exited within 3 s.
func (p *process) stop() {
	pid := p.cmd.Process.Pid
	_ = syscall.Kill(-pid, syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(3 * time.Second):
		_ = syscall.Kill(-pid, syscall.SIGKILL)
		<-p.done
	}
}

// waitReady polls addr until it accepts a connection and ready (if not
// nil) succeeds, the process exits, or the timeout passes.
func (p *process) waitReady(addr string, timeout time.Duration, ready func(context.Context) error) error {
	deadline := time.Now().Add(timeout)
	var last error
	for time.Now().Before(deadline) {
		select {
		case <-p.done:
			return fmt.Errorf("exited (%v) before answering; its output:\n%s", p.err, p.log.tail())
		default:
		}
		conn, err := net.DialTimeout("tcp", addr, 200*time.Millisecond)
		if err == nil {
			conn.Close()
			if ready == nil {
				return nil
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			err = ready(ctx)
			cancel()
			if err == nil {
				return nil
			}
		}
		last = err
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Errorf("not answering on %s after %v (%v); its output:\n%s", addr, timeout, last, p.log.tail())
}

// launch starts a server on a free port and waits for it, tried three
// times, since a port found free may be taken before the server binds it
// (the server that then answers must be the one started). The timeout
// bounds a start that never comes; a ready server returns at once.
func launch(t testing.TB, what string, timeout time.Duration, command func(port int) *exec.Cmd, ready func(addr string) func(context.Context) error) (*process, string) {
	t.Helper()
	var errs []error
	for range 3 {
		port, err := freePort()
		if err != nil {
			Unavailable(t, "%s: no free port: %v", what, err)
		}
		addr := fmt.Sprintf("127.0.0.1:%d", port)
		p, err := start(command(port))
		if err != nil {
			Unavailable(t, "%s: %v", what, err)
		}
		err = p.waitReady(addr, timeout, ready(addr))
		if err == nil {
			var ours bool
			if ours, err = listens(p.PID(), port); err == nil && !ours {
				err = fmt.Errorf("another process answers on port %d", port)
			}
		}
		if err == nil {
			t.Cleanup(p.stop)
			return p, addr
		}
		p.stop()
		errs = append(errs, err)
	}
	Unavailable(t, "%s did not start: %v", what, errors.Join(errs...))
	return nil, ""
}

// PID returns the server's process ID.
func (p *process) PID() int { return p.cmd.Process.Pid }
