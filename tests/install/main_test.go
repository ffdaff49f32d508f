// Package install tests plugin installation the Terraform way, as a user
// meets it: the zarrgw command and real plugin binaries built here, real
// filesystem mirrors in both layouts, a real network mirror (an HTTP
// server on loopback over a directory "zarrgw plugins mirror" wrote), a
// shared plugin cache, and the lock file.
package install

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	bin "github.com/zarrgw/zarrgw/tests/support/binary"
)

// Built by TestMain.
var (
	zarrgwBin     string
	bitshaveBin   string // the example external codec, for this platform
	crossBin      string // the same, built for crossPlatform
	crossPlatform string // a platform this machine is not
	version99Bin  string // a plugin speaking a protocol version no zarrgw speaks
)

func TestMain(m *testing.M) {
	var remove func()
	zarrgwBin, remove = bin.Build()
	dir, err := os.MkdirTemp("", "zarrgw-install-")
	code := 1
	if err == nil {
		err = buildPlugins(dir)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
	} else {
		code = m.Run()
	}
	os.RemoveAll(dir)
	remove()
	os.Exit(code)
}

func buildPlugins(dir string) error {
	root := repoRoot()
	crossPlatform = "linux_arm64"
	if runtime.GOARCH == "arm64" {
		crossPlatform = "linux_amd64"
	}
	goos, goarch, _ := strings.Cut(crossPlatform, "_")
	bitshaveBin = filepath.Join(dir, "bitshave")
	crossBin = filepath.Join(dir, "bitshave-"+crossPlatform)
	version99Bin = filepath.Join(dir, "version99")
	builds := []struct {
		dir, out, pkg string
		env           []string
	}{
		{filepath.Join(root, "plugins/codecs/bitshave"), bitshaveBin, "./cmd/zarrgw-codec-bitshave", nil},
		{filepath.Join(root, "plugins/codecs/bitshave"), crossBin, "./cmd/zarrgw-codec-bitshave", []string{"GOOS=" + goos, "GOARCH=" + goarch}},
		{root, version99Bin, "./tests/plugins/testdata/testplugin", nil},
	}
	for _, b := range builds {
		cmd := exec.Command("go", "build", "-o", b.out, b.pkg)
		cmd.Dir = b.dir
		cmd.Env = append(os.Environ(), b.env...)
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("go build %s %v: %v\n%s", b.pkg, b.env, err, out)
		}
	}
	return nil
}

func repoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// machine is one user's machine: a home directory, a CLI configuration
// file, and the environment zarrgw runs in there.
type machine struct {
	t    *testing.T
	home string
	cli  string
	env  []string
}

// newMachine returns a machine with a fresh home and the given CLI
// configuration.
func newMachine(t *testing.T, cliConfig string) *machine {
	t.Helper()
	home := t.TempDir()
	cli := filepath.Join(home, "cli.hcl")
	write(t, cli, cliConfig)
	env := []string{"HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"), "ZARRGW_CLI_CONFIG_FILE=" + cli}
	for _, kv := range os.Environ() {
		if name, _, _ := strings.Cut(kv, "="); name == "PATH" || name == "TMPDIR" || name == "LANG" {
			env = append(env, kv)
		}
	}
	return &machine{t: t, home: home, cli: cli, env: env}
}

// run runs zarrgw in dir and returns its output and exit code.
func (m *machine) run(dir string, args ...string) (stdout, stderr string, code int) {
	m.t.Helper()
	cmd := exec.Command(zarrgwBin, args...)
	cmd.Dir = dir
	cmd.Env = m.env
	return bin.Run(m.t, cmd)
}

// must runs zarrgw and fails the test unless it succeeds.
func (m *machine) must(dir string, args ...string) string {
	m.t.Helper()
	stdout, stderr, code := m.run(dir, args...)
	if code != 0 {
		m.t.Fatalf("zarrgw %s: exit %d\n%s%s", strings.Join(args, " "), code, stdout, stderr)
	}
	return stdout
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func read(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
