// Package binary builds the zarrgw command once for a test package that
// runs it as a process.
package binary

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"
)

// Build compiles cmd/zarrgw into a temporary directory and returns its
// path and a function that removes it. A failed build is fatal: the
// caller's TestMain has nothing to test.
func Build() (string, func()) {
	dir, err := os.MkdirTemp("", "zarrgw-bin")
	if err != nil {
		panic(err)
	}
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(file), "..", "..", "..")
	bin := filepath.Join(dir, "zarrgw")
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/zarrgw")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		os.Stderr.Write(out)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	return bin, func() { os.RemoveAll(dir) }
}

// Main is a TestMain for a package whose tests run zarrgw: it builds the
// binary into *path, runs the tests and removes it.
func Main(m *testing.M, path *string) {
	var remove func()
	*path, remove = Build()
	code := m.Run()
	remove()
	os.Exit(code)
}

// Stop ends a zarrgw process the test started: SIGTERM, then SIGKILL if it
// is still there a minute later (beyond the default shutdown_timeout, 30s,
// that requests in flight may take), which is an error of the test, with
// log (the process's output) shown. It returns what Wait returned.
func Stop(t testing.TB, cmd *exec.Cmd, log fmt.Stringer) error {
	t.Helper()
	cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-time.After(time.Minute):
		cmd.Process.Kill()
		err := <-done
		t.Errorf("zarrgw did not stop within a minute of SIGTERM; its output:\n%s", log)
		return err
	}
}

// Run runs cmd to its end and returns its standard output, standard error
// and exit code; a command that cannot be started ends the test.
func Run(t testing.TB, cmd *exec.Cmd) (stdout, stderr string, code int) {
	t.Helper()
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		code = exit.ExitCode()
	} else if err != nil {
		t.Fatalf("%s: %v", cmd.Path, err)
	}
	return o.String(), e.String(), code
}
