package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// validate runs "zarrgw validate" on src with env added to the
// environment.
func validate(t *testing.T, src string, env ...string) (stderr string, code int) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "zarrgw.hcl")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(binary, "validate", "-c", path)
	cmd.Env = append(os.Environ(), env...)
	var e bytes.Buffer
	cmd.Stderr = &e
	err := cmd.Run()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		code = exit.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return e.String(), code
}

// An 80 000-deep list is a diagnostic with its line, not a Go stack
// overflow, and the snippet stops where the limit is crossed.
func TestValidateDeepNesting(t *testing.T) {
	stderr, code := validate(t, "server {\n  listen = \":80\"\n  cors_origins = "+strings.Repeat("[", 80000)+strings.Repeat("]", 80000)+"\n}\n")
	if code != 1 || !strings.Contains(stderr, "Nesting too deep") || !strings.Contains(stderr, "zarrgw.hcl line 3") ||
		strings.Contains(stderr, "stack overflow") || len(stderr) > 4096 {
		t.Errorf("exit %d:\n%.3000s", code, stderr)
	}
}

// What validate prints never holds a sensitive variable's value, whichever
// attribute it failed in.
func TestValidateHidesSensitiveValues(t *testing.T) {
	const secret = "s3secBOB-cmd-91c"
	src := `variable "sec" {
  env       = "ZARRGW_TEST_SEC"
  sensitive = true
}
store "fs" "a" {
  root = "/x"
}
dataset "d" {
  store  = store.fs.a
  prefix = "/${var.sec}"
  codec "zstd" {
    level = var.sec
  }
  access {
    read = [var.sec]
  }
}
server {
  listen       = var.sec
  idle_timeout = var.sec
  cors_origins = [var.sec + 1]
  s3 {
    listen       = var.sec
    buckets_from = var.sec
  }
}
`
	stderr, code := validate(t, src, "ZARRGW_TEST_SEC="+secret)
	if code != 1 || strings.Contains(stderr, secret) || !strings.Contains(stderr, "var.sec") {
		t.Errorf("exit %d:\n%s", code, stderr)
	}
}
