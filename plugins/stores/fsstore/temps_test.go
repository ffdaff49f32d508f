package fsstore

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zarrgw/zarrgw/core/store"
)

const envHangRoot = "ZARRGW_FS_TEST_HANG_ROOT"

// temps lists the temporary files in dir below root.
func temps(t *testing.T, root, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(root, dir))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), tempPrefix) {
			out = append(out, e.Name())
		}
	}
	return out
}

// killedMidWrite starts a child process that writes "d/k" in root and
// stops halfway through the value's bytes, waits until it says so, and
// kills it (SIGKILL): its temporary file stays in root/d.
func killedMidWrite(t *testing.T, root string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHangMidWriteChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), envHangRoot+"="+root)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	cmd.Process.Kill()
	cmd.Wait()
	if strings.TrimSpace(line) != "mid-write" {
		t.Fatalf("the child never reached the middle of its write (said %q, %v)", line, err)
	}
	if n := len(temps(t, root, "d")); n != 1 {
		t.Fatalf("%d temporary files after the kill, want the killed writer's one", n)
	}
}

// TestHangMidWriteChild is the body of killedMidWrite's child; it does
// nothing in a normal test run.
func TestHangMidWriteChild(t *testing.T) {
	root := os.Getenv(envHangRoot)
	if root == "" {
		t.Skip("runs only as a child of the sweep tests")
	}
	s, err := New(root, WithDirSync(false))
	must(t, err)
	s.test.midWrite = func() {
		os.Stdout.WriteString("mid-write\n")
		select {} // until killed
	}
	s.Set(t.Context(), "d/k", make([]byte, 1<<16), store.Condition{})
}

// A writer killed mid-write leaves a temporary file; the next process to
// write into that directory removes it.
func TestKilledWritersTemporaryFileIsSwept(t *testing.T) {
	root := t.TempDir()
	killedMidWrite(t, root)
	s, err := New(root)
	must(t, err)
	defer s.Close()
	mustSetKey(t, s, "d/other", "v")
	if left := temps(t, root, "d"); len(left) != 0 {
		t.Fatalf("temporary files of a dead writer left after a write into their directory: %v", left)
	}
	// the killed write never happened
	if _, err := s.Get(t.Context(), "d/k", store.ByteRange{}); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("d/k after its writer was killed: %v, want not found", err)
	}
}

// TestKilledWritersTemporaryFileWithoutSweep is the control: with the
// sweep switched off, the dead writer's file stays.
func TestKilledWritersTemporaryFileWithoutSweep(t *testing.T) {
	root := t.TempDir()
	killedMidWrite(t, root)
	s, err := New(root)
	must(t, err)
	defer s.Close()
	s.test.noSweep = true
	mustSetKey(t, s, "d/other", "v")
	if left := temps(t, root, "d"); len(left) != 1 {
		t.Fatalf("%d temporary files without the sweep; the test above cannot tell a sweep from none", len(left))
	}
}

// A sweep never removes the temporary file of a writer still at work, in
// this process or another store opened on the same root: the write ends
// with its value in place.
func TestSweepSparesLiveWriters(t *testing.T) {
	root := t.TempDir()
	writer, err := New(root, WithDirSync(false))
	must(t, err)
	defer writer.Close()
	other, err := New(root, WithDirSync(false))
	must(t, err)
	defer other.Close()

	halfway, resume := make(chan struct{}), make(chan struct{})
	writer.test.midWrite = func() {
		close(halfway)
		<-resume
	}
	done := make(chan error, 1)
	value := strings.Repeat("x", 1<<16)
	go func() {
		_, err := writer.Set(t.Context(), "d/k", []byte(value), store.Condition{})
		done <- err
	}()
	<-halfway
	mustSetKey(t, other, "d/other", "v") // other's first write into d sweeps it
	if n := len(temps(t, root, "d")); n != 1 {
		t.Fatalf("%d temporary files while a writer is at work, want its one", n)
	}
	close(resume)
	if err := <-done; err != nil {
		t.Fatalf("the write the sweep ran beside: %v", err)
	}
	wantKey(t, other, "d/k", value)
}
