package plugins

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/zarrgw/zarrgw/host/runtime/launcher"
)

func killPID(t *testing.T, pid int) {
	t.Helper()
	if pid <= 0 {
		t.Fatalf("no pid to kill: %d", pid)
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatalf("kill %d: %v", pid, err)
	}
}

// alive reports whether pid is a process that has not exited (a zombie
// waiting for a parent that does not reap it counts as gone).
func alive(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
	return len(fields) > 0 && fields[0] != "Z" && fields[0] != "X"
}

// waitGone waits for pid to exit. The bound is a failure, not a timing
// assertion: a plugin that outlives it would live forever.
func waitGone(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for alive(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("process %d is still running", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// waitState waits for the launcher to see p in state.
func waitState(t *testing.T, p *launcher.Plugin, state launcher.State) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for p.Status().State != state {
		if time.Now().After(deadline) {
			t.Fatalf("plugin %s is %s, not %s", p.Name(), p.Status().State, state)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// waitFile waits for a file to appear and returns its contents.
func waitFile(t *testing.T, path string) string {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		b, err := os.ReadFile(path)
		if err == nil && len(b) > 0 {
			return string(b)
		}
		if !errors.Is(err, os.ErrNotExist) && err != nil {
			t.Fatal(err)
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s never appeared", path)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// A plugin ends when its host is killed without a chance to stop it.
func TestPluginExitsWhenHostKilled(t *testing.T) {
	sum, err := launcher.Checksum(testPluginBin)
	if err != nil {
		t.Fatal(err)
	}
	host := exec.Command(testPluginBin, "host", testPluginBin, sum)
	out, err := host.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := host.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		host.Process.Kill()
		host.Wait()
		t.Fatalf("host gave no plugin pid: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil || !alive(pid) {
		t.Fatalf("plugin pid %q not running: %v", line, err)
	}
	if err := host.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	host.Wait()
	waitGone(t, pid)
}

// Close ends every plugin process.
func TestCloseEndsPlugins(t *testing.T) {
	l, _ := newLauncher(t)
	var pids []int
	for _, name := range []string{"a", "b"} {
		p := addPlugin(t, l, "example.org/test/"+name, testPluginBin, nil, "codec")
		if err := startErr(t, p); err != nil {
			t.Fatal(err)
		}
		pids = append(pids, p.Status().PID)
	}
	l.Close()
	for _, pid := range pids {
		waitGone(t, pid)
	}
}
