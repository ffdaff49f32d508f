package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/zarrgw/zarrgw/host/app"
)

// cp's help shows examples, both treatments of an existing destination,
// the dry run's JSON schema, partitions and --verify.
func TestCpHelpExamples(t *testing.T) {
	out, errOut, code := run(t, "cp", "--help")
	if code != 0 {
		t.Fatalf("cp --help: exit %d\n%s", code, errOut)
	}
	for _, want := range []string{"Examples:", "zarrgw cp --dry-run --json", "--overwrite", "--merge", `"destination_state"`, "exits 130",
		"--partition 2/4", "Partition 0 also writes every metadata document", "cp --verify", `"problems"`} {
		if !strings.Contains(out, want) {
			t.Errorf("cp --help does not say %q", want)
		}
	}
}

// The resume hint is the command as given, without --fresh (which would
// start the copy over), quoted where a shell needs it: pasted into a
// shell, it is the same argument list.
func TestResumeCommand(t *testing.T) {
	args := []string{"/opt/bin/zarrgw", "cp", "--fresh", "-q", "-fresh=true", "--codecs", `[{"name":"zstd"}]`, "my data.zarr", "it's.zarr"}
	got := resumeCommand(args)
	want := `/opt/bin/zarrgw cp -q --codecs '[{"name":"zstd"}]' 'my data.zarr' 'it'\''s.zarr'`
	if got != want {
		t.Fatalf("resume command\n%s\nwant\n%s", got, want)
	}
	out, err := exec.Command("sh", "-c", "printf '%s\\n' "+strings.TrimPrefix(got, "/opt/bin/zarrgw ")).Output()
	if err != nil {
		t.Fatal(err)
	}
	if back := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n"); strings.Join(back, "|") != `cp|-q|--codecs|[{"name":"zstd"}]|my data.zarr|it's.zarr` {
		t.Errorf("a shell reads the command back as %q", back)
	}
}

// The exit status of a stopped copy is the shell's for its signal.
func TestInterruptionExitCode(t *testing.T) {
	for sig, want := range map[os.Signal]int{os.Interrupt: 130, syscall.SIGTERM: 143} {
		e := newInterruption(sig, false, &app.CopySummary{Copied: 3})
		if e.ExitCode() != want || !strings.Contains(e.Error(), "run the same command again") {
			t.Errorf("%v: exit %d (want %d), %q", sig, e.ExitCode(), want, e.Error())
		}
	}
}

// A dry run into a directory that does not exist prints its plan and
// makes nothing.
func TestCpDryRunMakesNothing(t *testing.T) {
	src := t.TempDir()
	writeInt32Array(t, src)
	dst := filepath.Join(t.TempDir(), "new.zarr")
	out, errOut, code := run(t, "cp", "--dry-run", "--to-format", "3", "--chunks-per-shard", "2", src, dst)
	if code != 0 || !strings.Contains(out, "ARRAY") || !strings.Contains(out, "sharding_indexed[") || !strings.Contains(out, "dry run, nothing written") {
		t.Fatalf("dry run: exit %d\n%s%s", code, out, errOut)
	}
	if _, err := os.Stat(dst); err == nil {
		t.Fatal("the dry run made the destination")
	}
}
