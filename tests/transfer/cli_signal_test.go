package transfer

import (
	"bytes"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
)

// resumeHint finds the command cp's interruption message gives to
// resume.
var resumeHint = regexp.MustCompile(`(?m)^cp: interrupted by (SIG[A-Z]+) after \d+ copied.*; to resume, run the same command again: (.+)$`)

// A copy stopped by SIGINT (a byte copy) or SIGTERM (a rewrite to sharded
// v3), once its journal holds some of its work, stops cleanly: exit 130
// or 143, no failure reported, one line saying how to resume. The command
// that line gives, run as it is, resumes (it skips what was done) and
// ends with the destination an uninterrupted copy makes.
func TestCLIInterruptResumes(t *testing.T) {
	byteSrc := t.TempDir()
	for i := range 1500 { // small values: the copy is many keys long
		dir := filepath.Join(byteSrc, "data.zarr", "c", fmt.Sprint(i/100))
		os.MkdirAll(dir, 0o755)
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprint(i%100)), bytes.Repeat([]byte{byte(i)}, 512), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	rewriteSrc := t.TempDir()
	writeNoisyArray(t, rewriteSrc, "a", []int{2048, 2048}, []int{128, 128}) // 64 shards of 256 KiB below
	for _, c := range []struct {
		name   string
		sig    syscall.Signal
		code   int
		src    string
		args   []string
		prefix string // journal entries that show work done
	}{
		{"SIGINT, byte copy", syscall.SIGINT, 130, byteSrc, []string{"--jobs", "2"}, "k "},
		{"SIGTERM, rewrite", syscall.SIGTERM, 143, rewriteSrc, []string{"--chunks-per-shard", "2", "--memory", "4MiB", "--jobs", "2"}, "c "},
	} {
		t.Run(c.name, func(t *testing.T) {
			args := append(append([]string{"cp", "-q"}, c.args...), c.src)
			clean := filepath.Join(t.TempDir(), "clean")
			if _, errOut, code := zarrgwIn(t, t.TempDir(), append(args, clean)...); code != 0 {
				t.Fatalf("uninterrupted copy: exit %d\n%s", code, errOut)
			}
			dst, cache := filepath.Join(t.TempDir(), "dst"), t.TempDir()
			cmd := exec.Command(zarrgw, append(args, dst)...)
			cmd.Env = append(os.Environ(), "XDG_CACHE_HOME="+cache)
			var out, errOut bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &errOut
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			var done int
			if signalAt(t, cmd, c.sig, func() bool { done = journalEntries(t, cache, c.prefix); return done >= 2 }) {
				t.Fatalf("the copy ended before it was to be stopped\n%s%s", out.String(), errOut.String())
			}
			m := resumeHint.FindStringSubmatch(errOut.String())
			if code := cmd.ProcessState.ExitCode(); code != c.code || m == nil || len(lines(errOut.String())) != 1 {
				t.Fatalf("stopped by %v: exit %d, want %d and one line saying how to resume\nstdout %s\nstderr %s", c.sig, code, c.code, out.String(), errOut.String())
			}
			if journalEntries(t, cache, c.prefix) < done {
				t.Fatalf("the journal lost entries when the copy stopped")
			}
			again := exec.Command("sh", "-c", m[2])
			again.Env = cmd.Env
			rerun, err := again.CombinedOutput()
			if err != nil {
				t.Fatalf("the resume command %q: %v\n%s", m[2], err, rerun)
			}
			if !regexp.MustCompile(`skipped [1-9]\d*`).Match(rerun) {
				t.Errorf("the rerun skipped nothing: it did not resume: %s", rerun)
			}
			if want, got := tree(t, clean), tree(t, dst); !maps.Equal(want, got) {
				t.Errorf("the resumed copy differs from an uninterrupted one (%d entries, %d)", len(got), len(want))
			}
			t.Logf("%s after %d journal entries; %s; rerun: %s", m[1], done, strings.TrimSpace(errOut.String()), strings.TrimSpace(string(rerun)))
		})
	}
}
