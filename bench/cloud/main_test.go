// Package cloud benchmarks the s3 store against the bare AWS SDK client on
// one local versitygw: 256 parallel Gets of 1 MiB objects, in process and
// out of process (the store served by the test plugin of tests/cloud):
//
//	go test -run - -bench . -benchtime 20x -count 5 ./bench/cloud
//
// TestMain builds the plugin; versitygw comes from scripts/setup.sh.
package cloud

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

var pluginBin string

// atEnd are the cleanups of what the benchmarks share, run last first
// when they are done.
var atEnd []func()

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "zarrgw-bench-cloud-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	pluginBin = filepath.Join(dir, "cloudplugin")
	_, file, _, _ := runtime.Caller(0)
	cmd := exec.Command("go", "build", "-o", pluginBin, "./tests/cloud/testdata/cloudplugin")
	cmd.Dir = filepath.Join(filepath.Dir(file), "..", "..")
	code := 1
	if out, err := cmd.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "go build: %v\n%s", err, out)
	} else {
		code = m.Run()
	}
	for i := len(atEnd) - 1; i >= 0; i-- {
		atEnd[i]()
	}
	os.RemoveAll(dir)
	os.Exit(code)
}
