// Package config_test runs "zarrgw validate" and "zarrgw plugins lock" as
// a user would: the built binary, its exit code and its output.
package config_test

import (
	"crypto/sha256"
	"encoding/hex"
	bin "github.com/zarrgw/zarrgw/tests/support/binary"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "zarrgw-config")
	if err != nil {
		panic(err)
	}
	binary = filepath.Join(dir, "zarrgw")
	build := exec.Command("go", "build", "-o", binary, "github.com/zarrgw/zarrgw/cmd/zarrgw")
	if out, err := build.CombinedOutput(); err != nil {
		os.Stderr.Write(out)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func run(t *testing.T, dir string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	return runEnv(t, dir, nil, args...)
}

// runEnv is run with env (NAME=VALUE) added to its clean environment.
func runEnv(t *testing.T, dir string, env []string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Dir = dir
	// A clean environment: variables of the example must come from defaults
	// or from env.
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME")}, env...)
	return bin.Run(t, cmd)
}

const badConfig = `store "fs" "local" {
  root = "/data"
}

dataset "era5" {
  store = store.fs.local
  codec "zstd" {
    level = "high"
  }
}
`

func TestValidateReportsErrorWithSnippet(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "bad.hcl"), []byte(badConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"validate", "--config", "bad.hcl"}, {"validate", "-c", "bad.hcl"}, {"validate", "-config", "bad.hcl"}} {
		stdout, stderr, code := run(t, dir, args...)
		if code == 0 {
			t.Errorf("%v: exit code 0\n%s", args, stdout)
		}
		for _, want := range []string{
			"on bad.hcl line 8",       // file and line
			`8:     level = "high"`,   // the snippet
			`attribute "level"`,       // the offending attribute
			"zarrgw: bad.hcl:8,13-19", // the one-line summary, file:line,columns
		} {
			if !strings.Contains(stderr, want) {
				t.Errorf("%v: stderr lacks %q:\n%s", args, want, stderr)
			}
		}
	}
}

func TestValidateExample(t *testing.T) {
	example, err := filepath.Abs("../../config.hcl.example")
	if err != nil {
		t.Fatal(err)
	}
	// The example ships no credentials: the environment gives them.
	// and the fs store's root, a directory that exists.
	env := []string{
		"ZARRGW_INGEST_TOKEN_SHA256=d6d21e6d4a9c969670e67b5ea4b746242a23ad9ec2e8eb78c8d36f577f00581e",
		"ZARRGW_INGEST_S3_SECRET=an-ingest-secret",
		"ZARRGW_DATA_ROOT=" + t.TempDir(),
	}
	stdout, stderr, code := runEnv(t, t.TempDir(), env, "validate", "-c", example)
	// the fs, s3, azure, http and references stores, each checked against its schema
	if code != 0 || !strings.Contains(stdout, "valid: 4 datasets, 5 stores, 1 plugins") {
		t.Errorf("exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
	if strings.Contains(stderr, "Error") {
		t.Errorf("errors on the example:\n%s", stderr)
	}
	// Without them it fails, saying what to set.
	_, stderr, code = run(t, t.TempDir(), "validate", "-c", example)
	if code == 0 || !strings.Contains(stderr, "ZARRGW_INGEST_TOKEN_SHA256") || !strings.Contains(stderr, "ZARRGW_INGEST_S3_SECRET") {
		t.Errorf("without credentials: exit %d\n%s", code, stderr)
	}
}

func TestValidateNeedsAFile(t *testing.T) {
	_, stderr, code := run(t, t.TempDir(), "validate")
	if code == 0 || !strings.Contains(stderr, "--config") {
		t.Errorf("exit %d: %s", code, stderr)
	}
	_, stderr, code = run(t, t.TempDir(), "validate", "-c", "missing.hcl")
	if code == 0 || !strings.Contains(stderr, "missing.hcl") {
		t.Errorf("exit %d: %s", code, stderr)
	}
}

// An unpinned plugin fails validation until "plugins lock" records its
// binary's checksum; once pinned, validate starts it and asks what it
// serves. The plugin is zarrgw itself serving its bundled zstd codec.
func TestPluginsLock(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	exe, err := os.ReadFile(binary)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "bin", "codec"), exe, 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := `plugin "example.org/acme/zstd" {
  path = "bin/codec"
  args = ["plugin", "serve", "zstd"]
}
`
	if err := os.WriteFile(filepath.Join(dir, "config.hcl"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, stderr, code := run(t, dir, "validate", "-c", "config.hcl"); code == 0 || !strings.Contains(stderr, "not pinned") {
		t.Fatalf("unpinned plugin: exit %d\n%s", code, stderr)
	}
	if stdout, stderr, code := run(t, dir, "plugins", "lock", "-c", "config.hcl"); code != 0 || !strings.Contains(stdout, "1 plugins locked") {
		t.Fatalf("lock: exit %d\n%s%s", code, stdout, stderr)
	}
	lock, err := os.ReadFile(filepath.Join(dir, "config.lock.hcl")) // config.hcl's own lock file
	sum := sha256.Sum256(exe)
	if err != nil || !strings.Contains(string(lock), `plugin "example.org/acme/zstd"`) || !strings.Contains(string(lock), hex.EncodeToString(sum[:])) {
		t.Fatalf("lock file: %v\n%s", err, lock)
	}
	if stdout, stderr, code := run(t, dir, "validate", "-c", "config.hcl"); code != 0 {
		t.Errorf("after locking: exit %d\n%s%s", code, stdout, stderr)
	}
	if err := os.WriteFile(filepath.Join(dir, "bin", "codec"), []byte("changed"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, stderr, code := run(t, dir, "validate", "-c", "config.hcl"); code == 0 || !strings.Contains(stderr, "does not match") {
		t.Errorf("changed binary: exit %d\n%s", code, stderr)
	}
}

// A pinned binary that is not a plugin passes the checksum and then fails
// validation when it is started, with the plugin's name in the error.
func TestValidatePinnedNonPlugin(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	script := []byte("#!/bin/sh\necho not a plugin\n")
	if err := os.WriteFile(filepath.Join(dir, "bin", "codec"), script, 0o755); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(script)
	cfg := `plugin "example.org/acme/codec" {
  path   = "bin/codec"
  sha256 = "` + hex.EncodeToString(sum[:]) + `"
}
`
	if err := os.WriteFile(filepath.Join(dir, "config.hcl"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	_, stderr, code := run(t, dir, "validate", "-c", "config.hcl")
	if code == 0 || !strings.Contains(stderr, "could not be probed") || !strings.Contains(stderr, "example.org/acme/codec") {
		t.Errorf("exit %d\n%s", code, stderr)
	}
}

// A configuration's plugin wins over a bundled extension of the same name,
// and plugins list says so: here zarrgw itself serves zstd as a plugin.
func TestPluginsListShowsOverride(t *testing.T) {
	dir := t.TempDir()
	exe, err := os.ReadFile(binary)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "zstd-plugin"), exe, 0o755); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(exe)
	cfg := `plugin "example.org/fast/zstd" {
  path   = "zstd-plugin"
  sha256 = "` + hex.EncodeToString(sum[:]) + `"
  args   = ["plugin", "serve", "zstd"]
}
`
	if err := os.WriteFile(filepath.Join(dir, "config.hcl"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	out, stderr, code := run(t, dir, "plugins", "list", "-c", "config.hcl")
	for _, want := range []string{
		`(?m)^zstd +codec +- +\(bundled\) +overridden by example\.org/fast/zstd`,
		`(?m)^zstd +codec +- +example\.org/fast/zstd +running`,
		`(?m)^gzip +codec +- +\(bundled\) +in process`,
		`Resolution: a name served both by a configuration's plugin and by a bundled extension resolves to the plugin`,
	} {
		if !regexp.MustCompile(want).MatchString(out) {
			t.Errorf("plugins list lacks %s: exit %d\n%s%s", want, code, out, stderr)
		}
	}
}
