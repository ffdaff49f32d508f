// Package plugins tests extensions running out of process: real plugin
// binaries, built once by TestMain, launched through host/runtime/launcher.
package plugins

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// Binaries built by TestMain.
var (
	zarrgwBin     string // the zarrgw command, which serves every bundled extension
	testPluginBin string // testdata/testplugin
	bitshaveBin   string // the example external codec, its own module
	keyprefixBin  string // the example external storage transformer, its own module
)

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "zarrgw-plugins-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := 1
	if err := buildAll(dir); err != nil {
		fmt.Fprintln(os.Stderr, err)
	} else {
		code = m.Run()
	}
	os.RemoveAll(dir)
	os.Exit(code)
}

func buildAll(dir string) error {
	root := repoRoot()
	zarrgwBin = filepath.Join(dir, "zarrgw")
	testPluginBin = filepath.Join(dir, "testplugin")
	bitshaveBin = filepath.Join(dir, "zarrgw-codec-bitshave")
	keyprefixBin = filepath.Join(dir, "zarrgw-transformer-keyprefix")
	builds := []struct{ dir, out, pkg string }{
		{root, zarrgwBin, "./cmd/zarrgw"},
		{root, testPluginBin, "./tests/plugins/testdata/testplugin"},
		// A separate module and a separate build: the host never links it.
		{filepath.Join(root, "plugins/codecs/bitshave"), bitshaveBin, "./cmd/zarrgw-codec-bitshave"},
		{filepath.Join(root, "plugins/transformers/keyprefix"), keyprefixBin, "./cmd/zarrgw-transformer-keyprefix"},
	}
	for _, b := range builds {
		cmd := exec.Command("go", "build", "-o", b.out, b.pkg)
		cmd.Dir = b.dir
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("go build %s: %v\n%s", b.pkg, err, out)
		}
	}
	return nil
}

// repoRoot is the module root, two levels above this file's directory.
func repoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}
