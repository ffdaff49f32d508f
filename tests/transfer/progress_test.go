package transfer

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/zarrgw/zarrgw/tests/support/fixtures"
)

// On a terminal cp draws a bar that redraws itself; elsewhere it prints
// plain lines; with --quiet, nothing but the summary.
func TestProgress(t *testing.T) {
	fx := fixtures.Dir(t)
	script, err := exec.LookPath("script")
	if err != nil {
		t.Fatal("script (util-linux) is needed to run cp under a pseudo-terminal")
	}
	// under a pty: script runs the command with a terminal as stdout and
	// stderr, and copies what it shows
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, script, "-qec", zarrgw+" cp "+fx+"/zarrs "+t.TempDir(), "/dev/null")
	cmd.Env = append(os.Environ(), "XDG_CACHE_HOME="+t.TempDir(), "TERM=xterm")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("cp under a pty: %v\n%q", err, out)
	}
	screen := string(out)
	if !strings.Contains(screen, "\r") || !strings.Contains(screen, "%") || !strings.Contains(screen, "|") {
		t.Errorf("no progress bar on a terminal:\n%q", screen)
	}
	// not a terminal: lines
	_, errOut, code := cp(t, t.TempDir(), fx+"/zarrs", t.TempDir())
	if code != 0 || !strings.Contains(errOut, "cp: ") || !strings.Contains(errOut, " keys, ") || strings.Contains(errOut, "\r") {
		t.Errorf("plain progress: exit %d\n%q", code, errOut)
	}
	out2, errOut, code := cp(t, t.TempDir(), "--quiet", fx+"/zarrs", t.TempDir())
	if code != 0 || errOut != "" || !strings.HasPrefix(out2, "cp: copied ") {
		t.Errorf("--quiet: exit %d, stderr %q, stdout %q", code, errOut, out2)
	}
}
