package plugins

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/codec/codectest"
	"github.com/zarrgw/zarrgw/core/dtype"
	"github.com/zarrgw/zarrgw/host/runtime/launcher"
	"github.com/zarrgw/zarrgw/host/runtime/registry"
	"github.com/zarrgw/zarrgw/tests/support/servers"
)

// debianPython is the interpreter Python plugins run with: Debian's, which
// sees python3-grpcio, python3-protobuf and python3-numpy.
const debianPython = "/usr/bin/python3"

// needPythonSDK fails (under CI) or skips the test when Debian's Python
// lacks what the SDK imports.
func needPythonSDK(t *testing.T) {
	t.Helper()
	out, err := exec.Command(debianPython, "-c", "import grpc, google.protobuf, numpy, cryptography").CombinedOutput()
	if err != nil {
		servers.Unavailable(t, "Debian's Python cannot run plugins (%v: %s): run scripts/setup.sh (python3-grpcio, python3-protobuf, python3-cryptography)", err, out)
	}
}

// pythonWalkthrough runs the Python codec walk-through and returns its
// plugin's directory.
func pythonWalkthrough(t *testing.T) string {
	t.Helper()
	needPythonSDK(t)
	return filepath.Join(runWalkthroughOf(t, "pluginapi/python/README.md", "pycodec"), "xorpy")
}

// The Python walk-through as a user follows it: the plugin starts, is
// locked and used by a dataset whose chunks really are XORed with 42.
func TestPythonCodecWalkthrough(t *testing.T) {
	dir := pythonWalkthrough(t)
	chunk := readXorWalkthrough(t, dir)
	if want := xoredChunk00; !bytes.Equal(chunk, want) {
		t.Fatalf("chunk 0/0 holds % x, want % x", chunk, want)
	}
}

// The walk-through's Python codec passes the codec conformance suite out
// of process, under its name and its URI, with every optional part of
// the protocol (batches, shared memory) and without them.
func TestPythonCodecConformance(t *testing.T) {
	dir := pythonWalkthrough(t)
	cases := []codectest.Case{
		{Name: "xorpy", Configuration: json.RawMessage(`{"key": 42}`)},
		{Name: "https://example.com/zarr/codecs/xorpy/1.0", Configuration: json.RawMessage(`{"key": 0}`)},
	}
	l, logs := newLauncher(t)
	addPlugin(t, l, "example.com/tmp/xorpy", filepath.Join(dir, "plugin.py"), nil)
	codecs := registry.Bundled().InProcess().WithPlugins(l).Codecs()
	t.Run("full", func(t *testing.T) { codectest.Run(t, remoteOnly{codecs}, cases) })
	// The plugin logs (at debug, the host's level here) each batch and
	// each arena it maps.
	if !strings.Contains(logs.String(), `"msg":"batch"`) || !strings.Contains(logs.String(), `"msg":"map arena"`) {
		t.Errorf("the plugin served no batch or mapped no shared memory; host log:\n%s", tail(logs.String(), 20))
	}

	plain := writePythonPlugin(t, dir, "plain.py", `
import xor_codec
import zarrgw_plugin
zarrgw_plugin.serve(xor_codec.Xor, batch=False, shared_memory=False)
`)
	lp, plainLogs := newLauncher(t)
	addPlugin(t, lp, "example.com/tmp/xorpy-plain", plain, nil)
	plainCodecs := registry.Bundled().InProcess().WithPlugins(lp).Codecs()
	t.Run("plain", func(t *testing.T) { codectest.Run(t, remoteOnly{plainCodecs}, cases) })
	// Its features said no batches and no shared memory: the host asked
	// for neither (the SDK would have refused them, failing the calls).
	if strings.Contains(plainLogs.String(), `"msg":"batch"`) || strings.Contains(plainLogs.String(), `"msg":"map arena"`) {
		t.Errorf("the host batched or shared memory with a plugin whose features say it does neither")
	}
}

// writePythonPlugin writes an entry point beside the walk-through's
// plugin (its codec module and SDK copy) and returns its path.
func writePythonPlugin(t *testing.T, dir, name, body string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte("#!"+debianPython+"\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// The protocol's Python code is what generate.sh makes of the .proto
// files today.
func TestPythonStubsCurrent(t *testing.T) {
	for _, tool := range []string{"protoc", "grpc_python_plugin"} {
		if _, err := exec.LookPath(tool); err != nil {
			servers.Unavailable(t, "%s is missing: run scripts/setup.sh (protobuf-compiler, protobuf-compiler-grpc)", tool)
		}
	}
	fresh := t.TempDir()
	sdk := filepath.Join(repoRoot(), "pluginapi", "python")
	cmd := exec.Command(filepath.Join(sdk, "generate.sh"), fresh)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("generate.sh: %v\n%s", err, out)
	}
	committed := filepath.Join(sdk, "zarrgw_plugin", "_proto")
	want, got := treeOf(t, fresh), treeOf(t, committed)
	for name, content := range want {
		if got[name] != content {
			t.Errorf("%s differs from what generate.sh makes of the .proto files: run pluginapi/python/generate.sh", name)
		}
	}
	for name := range got {
		if _, ok := want[name]; !ok {
			t.Errorf("%s is not generated from any .proto file", name)
		}
	}
}

// treeOf maps the .py files below dir (by slash path) to their contents.
func treeOf(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".py") {
			return err
		}
		b, err := os.ReadFile(path)
		rel, _ := filepath.Rel(dir, path)
		out[filepath.ToSlash(rel)] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

var (
	_ = context.Background
	_ = codec.ErrCorrupt
	_ = dtype.Named
	_ = launcher.Checksum
)
