package cli

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/zarrgw/zarrgw/pluginapi"
)

type versionJSON struct {
	Version                string `json:"version"`
	Commit                 string `json:"commit"`
	CommitTime             string `json:"commit_time"`
	Modified               bool   `json:"modified"`
	GoVersion              string `json:"go_version"`
	Platform               string `json:"platform"`
	PluginProtocolVersions []int  `json:"plugin_protocol_versions"`
}

// zarrgw version, zarrgw --version and zarrgw -version print the same
// lines; version --json the same facts as an object: the Go version and
// platform it was built with, the plugin protocol versions it speaks, and
// the commit: the build's VCS revision in a checkout.
func TestVersion(t *testing.T) {
	text := must(t, "", "version")
	for _, args := range [][]string{{"--version"}, {"-version"}} {
		if got := must(t, "", args...); got != text {
			t.Errorf("zarrgw %s printed %q, zarrgw version %q", args[0], got, text)
		}
	}
	var v versionJSON
	out := must(t, "", "version", "--json")
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("version --json: %v\n%s", err, out)
	}
	if v.GoVersion != runtime.Version() || v.Platform != runtime.GOOS+"_"+runtime.GOARCH ||
		!slices.Equal(v.PluginProtocolVersions, pluginapi.ProtocolVersions) || v.Version == "" {
		t.Errorf("version --json: %+v", v)
	}
	for _, want := range []string{"zarrgw " + v.Version, v.GoVersion, "plugin protocol versions: 1"} {
		if !strings.Contains(text, want) {
			t.Errorf("version lacks %q:\n%s", want, text)
		}
	}
	// Built in a git checkout, the binary knows its commit.
	if head, err := exec.Command("git", "-C", repoRoot(), "rev-parse", "HEAD").Output(); err == nil && len(head) > 0 {
		if !regexp.MustCompile(`^[0-9a-f]{40}$`).MatchString(v.Commit) || v.CommitTime == "" || !strings.Contains(text, v.Commit) {
			t.Errorf("built in a checkout, version --json says commit %q at %q:\n%s", v.Commit, v.CommitTime, text)
		}
	}
}

// A release build sets the version and commit with -ldflags -X.
func TestVersionFromLdflags(t *testing.T) {
	exe := filepath.Join(t.TempDir(), "zarrgw")
	build := exec.Command("go", "build", "-o", exe, "-ldflags", "-X main.release=9.8.7 -X main.commit=0123abcd", "./cmd/zarrgw")
	build.Dir = repoRoot()
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, stderr, code := runBinary(t, exe, "", "version", "--json")
	var v versionJSON
	if err := json.Unmarshal([]byte(out), &v); err != nil || code != 0 || v.Version != "9.8.7" || v.Commit != "0123abcd" || v.Modified {
		t.Fatalf("version --json: %+v (%v)\n%s%s", v, err, out, stderr)
	}
	if text, _, _ := runBinary(t, exe, "", "--version"); !strings.HasPrefix(text, "zarrgw 9.8.7\ncommit: 0123abcd\n") {
		t.Errorf("--version printed:\n%s", text)
	}
}
