// Package cli tests the command line as scripts and people at a shell
// meet it: where create makes its location, fs store roots, the version,
// the JSON outputs, shell completion through cobra's hidden __complete
// command, and the suggestions mistakes get. Each test runs the zarrgw
// binary built for the package.
package cli

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	bin "github.com/zarrgw/zarrgw/tests/support/binary"
)

var binary string

func TestMain(m *testing.M) { bin.Main(m, &binary) }

// run runs zarrgw in dir (the test's own when "") with a CLI
// configuration of no one's, and returns its output and exit code.
func run(t *testing.T, dir string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	return runBinary(t, binary, dir, args...)
}

func runBinary(t *testing.T, exe, dir string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(exe, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "ZARRGW_CLI_CONFIG_FILE=", "XDG_CONFIG_HOME="+t.TempDir())
	return bin.Run(t, cmd)
}

// must runs zarrgw and fails the test unless it succeeds.
func must(t *testing.T, dir string, args ...string) string {
	t.Helper()
	stdout, stderr, code := run(t, dir, args...)
	if code != 0 {
		t.Fatalf("zarrgw %s: exit %d\n%s%s", strings.Join(args, " "), code, stdout, stderr)
	}
	return stdout
}

// fails runs zarrgw, which must fail with a single line on stderr
// holding each of want; it returns that line.
func fails(t *testing.T, dir string, args []string, want ...string) string {
	t.Helper()
	stdout, stderr, code := run(t, dir, args...)
	line := strings.TrimSuffix(stderr, "\n")
	if code == 0 || strings.Contains(line, "\n") {
		t.Errorf("zarrgw %s: exit %d, want a failure and one line on stderr:\n%s%s", strings.Join(args, " "), code, stdout, stderr)
	}
	for _, w := range want {
		if !strings.Contains(line, w) {
			t.Errorf("zarrgw %s: stderr lacks %q:\n%s", strings.Join(args, " "), w, stderr)
		}
	}
	return line
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// repoRoot is the checkout's top directory.
func repoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// sample is the checkout's sample hierarchy: a group with the arrays
// temperature (4x6 float32) and station.
func sample() string { return filepath.Join(repoRoot(), "examples", "sample.zarr") }

// lineOf is the line (from 1) of the first line of src holding s.
func lineOf(t *testing.T, src, s string) int {
	t.Helper()
	for i, l := range strings.Split(src, "\n") {
		if strings.Contains(l, s) {
			return i + 1
		}
	}
	t.Fatalf("no line holds %q", s)
	return 0
}

func lineRef(file string, line int) string { return fmt.Sprintf("%s:%d", file, line) }
