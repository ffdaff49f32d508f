package main

import (
	"bytes"
	"encoding/json"
	bin "github.com/zarrgw/zarrgw/tests/support/binary"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zarrgw/zarrgw/tests/support/fixtures"
)

var binary string

func TestMain(m *testing.M) {
	serveAsCLI()
	dir, err := os.MkdirTemp("", "zarrgw-cli")
	if err != nil {
		panic(err)
	}
	binary = filepath.Join(dir, "zarrgw")
	if out, err := exec.Command("go", "build", "-o", binary, ".").CombinedOutput(); err != nil {
		os.Stderr.Write(out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func run(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	return runWithInput(t, nil, args...)
}

// runWithInput runs zarrgw with stdin fed from a pipe (nil: no input).
func runWithInput(t *testing.T, stdin []byte, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(binary, args...)
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	return bin.Run(t, cmd)
}

func TestCatJSONMatchesFixture(t *testing.T) {
	dir := fixtures.Dir(t)
	out, stderr, code := run(t, "cat", filepath.Join(dir, "zarrita-js/v2/data.zarr"), "--path", "1d.contiguous.f4.be")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var got struct {
		ZarrFormat int       `json:"zarr_format"`
		Shape      []int     `json:"shape"`
		DataType   string    `json:"data_type"`
		Data       []float64 `json:"data"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, out)
	}
	if !strings.Contains(out, `"data_type": ">f4"`) {
		t.Fatalf("the data type is not written as it is named: %.100s", out)
	}
	want := []float64{-1000.5, 0, 1000.5, 0} // expected.json for this fixture
	if got.ZarrFormat != 2 || got.DataType != ">f4" || len(got.Shape) != 1 || got.Shape[0] != 4 {
		t.Fatalf("header %+v", got)
	}
	for i := range want {
		if got.Data[i] != want[i] {
			t.Fatalf("data %v, want %v", got.Data, want)
		}
	}
}

func TestCatSpecialFloatsAndStrings(t *testing.T) {
	dir := fixtures.Dir(t)
	out, stderr, code := run(t, "cat", filepath.Join(dir, "zarrs/array_write_read.zarr"), "--path", "group/array")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(out, `"NaN"`) || strings.Contains(out, "NaN,") {
		t.Fatalf("NaN not written as the string \"NaN\": %s", out[:min(len(out), 300)])
	}
}

func TestInspectTree(t *testing.T) {
	dir := fixtures.Dir(t)
	out, stderr, code := run(t, "inspect", filepath.Join(dir, "zarrs/hierarchy.zarr"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"a (group, v3)", "baz (array, v3) shape=[10000,1000] dtype=float64", "b (group, v3)"} {
		if !strings.Contains(out, want) {
			t.Errorf("inspect output lacks %q:\n%s", want, out)
		}
	}
}

// Bad input: one clear line on stderr, a non-zero exit, no panic trace.
func TestBadInputOneLine(t *testing.T) {
	broken := t.TempDir()
	os.WriteFile(filepath.Join(broken, "zarr.json"), []byte(`{"zarr_format": 3, "node_type": "array", "shape": [`), 0o644)
	cases := [][]string{
		{"cat", filepath.Join(t.TempDir(), "missing")},
		{"cat", broken},
		{"inspect", broken},
		{"cat", "--format", "xml", broken},
		{"cat", "--slice", "1:2:0", "../../examples/sample.zarr", "--path", "temperature"},
	}
	for _, args := range cases {
		_, stderr, code := run(t, args...)
		if code == 0 {
			t.Errorf("%v: exit 0", args)
		}
		lines := strings.Split(strings.TrimRight(stderr, "\n"), "\n")
		if len(lines) != 1 || !strings.HasPrefix(lines[0], "zarrgw: ") || strings.Contains(stderr, "goroutine") {
			t.Errorf("%v: stderr is not one clear line:\n%s", args, stderr)
		}
	}
}

// The fixture holds one empty inner chunk out of 16 (MANIFEST.md), at the
// end of each shard.
func TestInspectShardLayout(t *testing.T) {
	dir := fixtures.Dir(t)
	out, stderr, code := run(t, "inspect", "--path", "2d.chunked.compressed.sharded.filled.i2", filepath.Join(dir, "zarrita-js/v3/data.zarr"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"shard [2 2], inner [1 1]", "index end", "filled 15/16 inner chunks"} {
		if !strings.Contains(out, want) {
			t.Errorf("inspect output lacks %q:\n%s", want, out)
		}
	}
}
