package plugins

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/zarrgw/zarrgw/host/runtime/launcher"
)

// startErr starts p with a bound, so a start that hung would fail the test
// instead of stalling it.
func startErr(t *testing.T, p *launcher.Plugin) error {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	return p.Start(ctx)
}

func wantErr(t *testing.T, err error, parts ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want one containing %q", parts)
	}
	for _, part := range parts {
		if !strings.Contains(err.Error(), part) {
			t.Fatalf("error %q does not contain %q", err, part)
		}
	}
}

// A binary that does not match its pinned checksum is refused before it is
// executed: the marker it would write when run does not appear. The same
// binary with the right checksum does write it, so the check can fail.
func TestChecksumMismatchNotExecuted(t *testing.T) {
	l, _ := newLauncher(t)
	marker := filepath.Join(t.TempDir(), "executed")
	env := map[string]string{"ZARRGW_TEST_MARKER": marker}
	p, err := l.Add(launcher.Spec{Name: "example.org/test/pinned", Path: testPluginBin,
		SHA256: strings.Repeat("ab", 32), Args: []string{"codec"}, Env: env})
	if err != nil {
		t.Fatal(err)
	}
	wantErr(t, startErr(t, p), "example.org/test/pinned", "does not match its pinned sha256")
	if _, err := os.Stat(marker); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the binary ran despite the wrong checksum (marker: %v)", err)
	}
	good := addPlugin(t, l, "example.org/test/good", testPluginBin, env, "codec")
	if err := startErr(t, good); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Fatalf("a correctly pinned start left no marker: %v", err)
	}
}

// The checksum is verified again on a restart: a binary replaced while its
// plugin ran is refused when the plugin has to start again.
func TestChecksumVerifiedOnRestart(t *testing.T) {
	l, _ := newLauncher(t)
	bin := filepath.Join(t.TempDir(), "plugin")
	copyFile(t, testPluginBin, bin)
	p := addPlugin(t, l, "example.org/test/swapped", bin, nil, "codec")
	if err := startErr(t, p); err != nil {
		t.Fatal(err)
	}
	pid := p.Status().PID
	// Replace the file as an upgrade would (a running binary cannot be
	// written in place), then make the plugin crash.
	copyFile(t, bitshaveBin, bin+".new")
	if err := os.Rename(bin+".new", bin); err != nil {
		t.Fatal(err)
	}
	killPID(t, pid)
	waitGone(t, pid)
	waitState(t, p, launcher.Exited) // the host notices a death on its own time
	actual, err := launcher.Checksum(bin)
	if err != nil {
		t.Fatal(err)
	}
	// The error gives both checksums: the binary's, and the pinned one.
	wantErr(t, startErr(t, p), "example.org/test/swapped", "does not match its pinned sha256", actual, p.Spec().SHA256)
}

// A binary that is not a plugin fails to start with an error naming it.
func TestNotAPlugin(t *testing.T) {
	l, _ := newLauncher(t)
	p := addPlugin(t, l, "example.org/test/notplugin", testPluginBin, nil, "notplugin")
	wantErr(t, startErr(t, p), "example.org/test/notplugin", "usage: testplugin")
}

// A plugin that writes to stdout before serving breaks the handshake; the
// error shows what it printed.
func TestStdoutBeforeServing(t *testing.T) {
	l, _ := newLauncher(t)
	p := addPlugin(t, l, "example.org/test/chatty", testPluginBin, nil, "stdout")
	wantErr(t, startErr(t, p), "example.org/test/chatty", "hello from a plugin that talks too early")
}

// A plugin built for a protocol version this host does not speak is
// refused with the versions the host speaks.
func TestUnknownProtocolVersion(t *testing.T) {
	l, _ := newLauncher(t)
	p := addPlugin(t, l, "example.org/test/future", testPluginBin, nil, "version99")
	wantErr(t, startErr(t, p), "example.org/test/future", "Plugin version: 99", "speaks plugin protocol version(s) [1]")
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o755); err != nil {
		t.Fatal(err)
	}
}

// A start that never completes its handshake gives up at the caller's
// deadline; go-plugin ends the process at the start timeout.
func TestStartHonoursDeadline(t *testing.T) {
	l := launcher.New(launcher.Options{StartTimeout: 3 * time.Second})
	defer l.Close()
	p := addPlugin(t, l, "example.org/test/silent", testPluginBin, nil, "silent")
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	if err := p.Start(ctx); !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "example.org/test/silent") {
		t.Fatalf("start: %v", err)
	}
	// Without a deadline of its own, a caller gets go-plugin's start timeout.
	if err := startErr(t, p); err == nil || !strings.Contains(err.Error(), "timeout") {
		t.Fatalf("second start: %v", err)
	}
}
