// Package plugins benchmarks extensions out of process against the same
// extensions in process:
//
//	go test -run - -bench . ./bench/plugins
//
// TestMain builds the zarrgw binary, which serves every bundled extension.
package plugins

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

var zarrgwBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "zarrgw-bench-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	zarrgwBin = filepath.Join(dir, "zarrgw")
	_, file, _, _ := runtime.Caller(0)
	cmd := exec.Command("go", "build", "-o", zarrgwBin, "./cmd/zarrgw")
	cmd.Dir = filepath.Join(filepath.Dir(file), "..", "..")
	code := 1
	if out, err := cmd.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "go build: %v\n%s", err, out)
	} else {
		code = m.Run()
	}
	os.RemoveAll(dir)
	os.Exit(code)
}
