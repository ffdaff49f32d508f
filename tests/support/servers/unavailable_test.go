package servers

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// Unavailable fails the test under CI=true, and elsewhere ends it as not
// run, saying so on stderr: run in a child process both ways.
func TestUnavailable(t *testing.T) {
	child := func(ci string) (string, error) {
		cmd := exec.Command(os.Args[0], "-test.run=^TestUnavailableChild$", "-test.v", "-test.count=1")
		cmd.Env = append(os.Environ(), "ZARRGW_UNAVAILABLE_CHILD=1", "CI="+ci)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	out, err := child("true")
	if err == nil || !strings.Contains(out, "unavailable (CI=true, so this fails): no widget") {
		t.Errorf("under CI=true: exit %v\n%s", err, out)
	}
	out, err = child("")
	if err != nil || !strings.Contains(out, "SKIP TestUnavailableChild: unavailable: no widget") || !strings.Contains(out, "--- SKIP") {
		t.Errorf("without CI: exit %v\n%s", err, out)
	}
}

// TestUnavailableChild is TestUnavailable's child process; on its own it
// does nothing.
func TestUnavailableChild(t *testing.T) {
	if os.Getenv("ZARRGW_UNAVAILABLE_CHILD") == "" {
		return
	}
	Unavailable(t, "no %s", "widget")
}
