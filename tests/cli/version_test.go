package cli

import (
	"encoding/json"
	"github.com/zarrgw/zarrgw/tests/support/servers"
	"os"
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
	Zstd                   string `json:"zstd"`
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
	// The zstd library is the one the toolchain linked: libzstd when the
	// build had the libzstd tag, klauspost/compress otherwise.
	wantZstd := "klauspost/compress v"
	if buildTags(t, binary)["libzstd"] {
		wantZstd = "libzstd 1."
	}
	if !strings.HasPrefix(v.Zstd, wantZstd) || !strings.Contains(text, "zstd: "+v.Zstd+"\n") {
		t.Errorf("version says zstd %q, want %q...:\n%s", v.Zstd, wantZstd, text)
	}
	// The commit is the VCS revision the toolchain recorded, if any.
	if rev := recordedRevision(t, binary); v.Commit != rev || rev == "" && !strings.Contains(text, "commit: unknown") {
		t.Errorf("version --json says commit %q, the binary records %q:\n%s", v.Commit, rev, text)
	}
}

// recordedRevision is the vcs.revision go version -m finds in exe.
func recordedRevision(t *testing.T, exe string) string {
	t.Helper()
	out, err := exec.Command("go", "version", "-m", exe).Output()
	if err != nil {
		t.Fatal(err)
	}
	if m := regexp.MustCompile(`(?m)^\s*build\s+vcs\.revision=(\S+)$`).FindSubmatch(out); m != nil {
		return string(m[1])
	}
	return ""
}

// buildTags are the -tags go version -m finds recorded in exe.
func buildTags(t *testing.T, exe string) map[string]bool {
	t.Helper()
	out, err := exec.Command("go", "version", "-m", exe).Output()
	if err != nil {
		t.Fatal(err)
	}
	tags := map[string]bool{}
	if m := regexp.MustCompile(`(?m)^\s*build\s+-tags=(\S+)$`).FindSubmatch(out); m != nil {
		for _, tag := range strings.Split(string(m[1]), ",") {
			tags[tag] = true
		}
	}
	return tags
}

// Built in a git checkout with VCS stamping (-buildvcs, which GOFLAGS may
// turn off), the binary knows its commit and when it was made.
func TestVersionFromVCS(t *testing.T) {
	if err := exec.Command("git", "-C", repoRoot(), "rev-parse", "HEAD").Run(); err != nil {
		servers.Unavailable(t, "not a git checkout (CI checks the repository out with git): %v", err)
	}
	exe := filepath.Join(t.TempDir(), "zarrgw")
	build := exec.Command("go", "build", "-buildvcs=true", "-o", exe, "./cmd/zarrgw")
	build.Dir = repoRoot()
	// git status, which stamping runs, then leaves the index alone for
	// whoever is committing in this checkout.
	build.Env = append(os.Environ(), "GIT_OPTIONAL_LOCKS=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, _, _ := runBinary(t, exe, "", "version", "--json")
	var v versionJSON
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatal(err)
	}
	rev := recordedRevision(t, exe)
	if !regexp.MustCompile(`^[0-9a-f]{40}$`).MatchString(v.Commit) || v.Commit != rev || v.CommitTime == "" {
		t.Errorf("version --json: %+v; the binary records revision %q", v, rev)
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
