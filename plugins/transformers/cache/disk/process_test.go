package disk

import (
	"bufio"
	"errors"
	"fmt"
	"github.com/zarrgw/zarrgw/tests/support/servers"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// The child processes of these tests are this test binary, run with one
// of these variables set, running runChild.
const (
	holdEnv = "ZARRGW_DISK_TEST_HOLD" // open the tier in it, say HELD, wait for stdin to close
	tryEnv  = "ZARRGW_DISK_TEST_TRY"  // open the tier in it and say how it went
)

// TestMain runs the child process of the tests below when the
// environment names its part, and the tests otherwise.
func TestMain(m *testing.M) {
	if os.Getenv(holdEnv) != "" || os.Getenv(tryEnv) != "" {
		runChild()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// runChild holds the tier named by holdEnv until its standard input ends,
// or opens the one named by tryEnv, and says how it went.
func runChild() {
	if dir := os.Getenv(holdEnv); dir != "" {
		d, err := Open(dir, 1<<20, 1000)
		if err != nil {
			fmt.Println("ERR:", err)
			return
		}
		if err := d.Put("child", "", "v", []byte("from the child")); err != nil {
			fmt.Println("ERR:", err)
			return
		}
		fmt.Println("HELD")
		io.Copy(io.Discard, os.Stdin)
		d.Close()
		fmt.Println("RELEASED")
	}
	if dir := os.Getenv(tryEnv); dir != "" {
		d, err := Open(dir, 1<<20, 1000)
		if err != nil {
			fmt.Printf("ERR: in use %v: %v\n", errors.Is(err, ErrInUse), err)
			return
		}
		d.Close()
		fmt.Println("OPENED")
	}
}

func child(env string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), env)
	return cmd
}

// wantInUse checks Open's error for a directory someone else holds.
func wantInUse(t *testing.T, dir string, err error) {
	t.Helper()
	if err == nil {
		t.Fatal("a second Open of a held directory succeeded")
	}
	msg := err.Error()
	if !errors.Is(err, ErrInUse) || !strings.Contains(msg, dir) ||
		!strings.Contains(msg, "two gateways must not share one disk tier") {
		t.Fatalf("Open of a held directory: %v", err)
	}
}

func TestLockHeldByAnotherProcess(t *testing.T) {
	dir := t.TempDir()
	cmd := child(holdEnv + "=" + dir)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	lines := bufio.NewScanner(stdout)
	if !lines.Scan() || lines.Text() != "HELD" {
		t.Fatalf("child: %q %v\n%s", lines.Text(), lines.Err(), stderr.String())
	}

	_, err = Open(dir, 1<<20, 1000)
	wantInUse(t, dir, err)
	// The error is the lock's, not a damaged directory's: the child's
	// entry is intact.
	if files, _ := onDisk(t, dir); files != 1 {
		t.Fatalf("%d entry files while held; want the child's 1", files)
	}

	stdin.Close()
	rest, _ := io.ReadAll(stdout)
	if err := cmd.Wait(); err != nil || !strings.Contains(string(rest), "RELEASED") {
		t.Fatalf("child: %v\n%s%s", err, rest, stderr.String())
	}
	d := open(t, dir, 1<<20)
	wantHit(t, d, "child", "", "v", []byte("from the child"))
}

// This process holds the tier: another process's Open fails, and another
// Open in this process too; once closed, both succeed.
func TestLockHeldByThisProcess(t *testing.T) {
	dir := t.TempDir()
	d, err := Open(dir, 1<<20, 1000)
	if err != nil {
		t.Fatal(err)
	}
	out, err := child(tryEnv + "=" + dir).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "ERR: in use true: ") ||
		!strings.Contains(string(out), dir) || !strings.Contains(string(out), "two gateways must not share one disk tier") {
		t.Fatalf("child's Open while held: %v\n%s", err, out)
	}
	_, err = Open(dir, 1<<20, 1000)
	wantInUse(t, dir, err)
	// Through another spelling of the same directory.
	_, err = Open(filepath.Join(dir, ".", subdir, ".."), 1<<20, 1000)
	if !errors.Is(err, ErrInUse) {
		t.Fatalf("Open through another path: %v", err)
	}

	d.Close()
	out, err = child(tryEnv + "=" + dir).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "OPENED") {
		t.Fatalf("child's Open after Close: %v\n%s", err, out)
	}
	open(t, dir, 1<<20)
}

func TestNotWritable(t *testing.T) {
	t.Run("a file", func(t *testing.T) {
		file := filepath.Join(t.TempDir(), "file")
		if err := os.WriteFile(file, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		for _, dir := range []string{file, filepath.Join(file, "below")} {
			_, err := Open(dir, 1<<20, 1000)
			if err == nil || !strings.Contains(err.Error(), dir) {
				t.Errorf("Open(%s): %v", dir, err)
			}
		}
	})
	t.Run("proc", func(t *testing.T) {
		// procfs refuses new directories, even to root.
		if _, err := os.Stat("/proc/self"); err != nil {
			servers.Unavailable(t, "no /proc: %v", err)
		}
		dir := "/proc/self/zarrgw-cache"
		_, err := Open(dir, 1<<20, 1000)
		if err == nil || !strings.Contains(err.Error(), dir) || !strings.Contains(err.Error(), "cannot create") {
			t.Fatalf("Open(%s): %v", dir, err)
		}
	})
	// A directory without write permission, new and one used before.
	for _, used := range []bool{false, true} {
		t.Run(fmt.Sprint("read-only used=", used), func(t *testing.T) {
			top := t.TempDir()
			dir := filepath.Join(top, "cache")
			ro := dir
			if used {
				d, err := Open(dir, 1<<20, 1000)
				if err != nil {
					t.Fatal(err)
				}
				put(t, d, "k", "", "v", []byte("x"))
				d.Close()
				ro = filepath.Join(dir, subdir)
				// A lock file anyone may open: the directory itself
				// must still be found not writable.
				if err := os.Chmod(filepath.Join(ro, lockName), 0o666); err != nil {
					t.Fatal(err)
				}
			} else if err := os.Mkdir(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(ro, 0o555); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { os.Chmod(ro, 0o755) })
			var msg string
			if os.Geteuid() != 0 {
				_, err := Open(dir, 1<<20, 1000)
				if err == nil {
					t.Fatal("Open of a read-only directory succeeded")
				}
				msg = err.Error()
			} else {
				msg = openAsNobody(t, top, dir)
			}
			if !strings.Contains(msg, "disk cache "+dir+": directory is not writable") ||
				!strings.Contains(msg, "permission denied") {
				t.Fatalf("Open of a read-only directory: %s", msg)
			}
		})
	}
}

// openAsNobody runs Open(dir) in a child process without root's
// privileges (root writes everywhere) and returns its error. The child is
// a copy of this test binary in top, which it can read.
func openAsNobody(t *testing.T, top, dir string) string {
	t.Helper()
	exe := filepath.Join(top, "disk.test")
	b, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(exe, b, 0o755); err != nil {
		t.Fatal(err)
	}
	for p := top; p != os.TempDir() && p != "/" && p != "."; p = filepath.Dir(p) {
		if err := os.Chmod(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []string{dir, filepath.Join(dir, subdir)} {
		if fi, err := os.Stat(p); err == nil && fi.Mode().Perm()&0o200 != 0 {
			os.Chmod(p, 0o755) // searchable, still not writable by nobody
		}
	}
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), tryEnv+"="+dir)
	cmd.Dir = "/"
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	if err != nil {
		if errors.Is(err, syscall.EPERM) || errors.Is(err, syscall.EACCES) {
			servers.Unavailable(t, "cannot run a child process as nobody: %v", err)
		}
		t.Fatalf("child: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "ERR: ") {
		t.Fatalf("child opened a read-only directory:\n%s", out)
	}
	return string(out)
}
