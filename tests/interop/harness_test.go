package interop

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/zarrgw/zarrgw/core/dtype"
)

// setupCommand installs the foreign clients (run from the repository root).
const setupCommand = "bash scripts/setup.sh"

// python is Debian's interpreter, which sees the apt-installed python3-zarr
// (a python3 earlier on PATH may be another installation without it).
const python = "/usr/bin/python3"

// scriptTimeout bounds one foreign client process.
const scriptTimeout = 2 * time.Minute

// requireNode returns the node binary, failing (never skipping) with the
// setup command when node or zarrita.js is missing.
func requireNode(t *testing.T) string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("node is not installed (needed to run zarrita.js): install Node.js, then run `%s` from the repository root", setupCommand)
	}
	for _, p := range []string{"js/node_modules/zarrita/package.json", "js/node_modules/@zarrita/storage/package.json"} {
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("zarrita.js is not installed (%v): run `%s` from the repository root", err, setupCommand)
		}
	}
	return node
}

// requirePython fails with the setup command when Debian's python3 is
// missing; a missing zarr module is detected when the script runs.
func requirePython(t *testing.T) {
	t.Helper()
	if _, err := os.Stat(python); err != nil {
		t.Fatalf("%s is missing (%v): run `%s` from the repository root (installs python3-zarr and python3-numcodecs)", python, err, setupCommand)
	}
}

// runScript writes manifest to a file, runs name with the script and the
// manifest's path, and decodes the JSON it prints into out.
func runScript(t *testing.T, name, script string, manifest, out any) {
	t.Helper()
	mf := filepath.Join(t.TempDir(), "manifest.json")
	b, err := json.Marshal(manifest)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(mf, b, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), scriptTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, script, mf)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	var exit *exec.ExitError
	if errors.As(err, &exit) && exit.ExitCode() == 3 && name == python {
		t.Fatalf("zarr-python is not importable by %s (%s): run `%s` from the repository root",
			python, strings.TrimSpace(stderr.String()), setupCommand)
	}
	if err != nil {
		t.Fatalf("%s %s: %v\nstderr:\n%s", name, script, err, stderr.String())
	}
	if err := json.Unmarshal(stdout.Bytes(), out); err != nil {
		t.Fatalf("%s %s: output is not JSON: %v\nstdout:\n%.2000s\nstderr:\n%s", name, script, err, stdout.String(), stderr.String())
	}
}

// blocked marks a case that could not run for a known, reported reason
// (a codec zarrgw does not offer yet, a runtime the foreign client needs).
type blocked struct{ reason string }

func (b blocked) Error() string { return b.reason }

// tally counts the outcome of the cases of one direction.
type tally struct {
	name                    string
	passed, failed, blocked int
}

// run runs one case as a subtest: nil passes, a blocked error is logged and
// counted apart, any other error fails the subtest.
func (tl *tally) run(t *testing.T, name string, fn func() error) {
	t.Helper()
	t.Run(name, func(t *testing.T) {
		err := fn()
		var b blocked
		switch {
		case err == nil:
			tl.passed++
		case errors.As(err, &b):
			tl.blocked++
			t.Logf("NOT RUN: %v", err)
		default:
			tl.failed++
			t.Error(err)
		}
	})
}

// summary prints the direction's counts, e.g. "interop zarrita-read: 24
// passed, 0 failed".
func (tl *tally) summary(t *testing.T, blockedWhat string) {
	line := fmt.Sprintf("interop %s: %d passed, %d failed", tl.name, tl.passed, tl.failed)
	if tl.blocked > 0 {
		line += fmt.Sprintf(", %d not run (%s)", tl.blocked, blockedWhat)
	}
	fmt.Println(line)
	if tl.passed == 0 {
		t.Errorf("interop %s: no case passed", tl.name)
	}
}

// parseForeign decodes one element as printed by a foreign client script:
// numbers as decimal strings (floats also "NaN", "Infinity", "-0", "nan",
// "inf"), booleans as JSON booleans, strings as JSON strings, fixed-width
// bytes as hex strings. The result has the Go type ndarray.At uses.
func parseForeign(dt dtype.DataType, raw json.RawMessage) (any, error) {
	if dt.Kind == dtype.Bool {
		var b bool
		err := json.Unmarshal(raw, &b)
		return b, err
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, fmt.Errorf("element %s: expected a JSON string: %v", raw, err)
	}
	switch dt.Kind {
	case dtype.Int:
		return strconv.ParseInt(s, 10, 64)
	case dtype.Uint:
		return strconv.ParseUint(s, 10, 64)
	case dtype.Float:
		return strconv.ParseFloat(s, 64)
	case dtype.FixedBytes:
		b, err := hex.DecodeString(s)
		return string(b), err
	}
	return s, nil
}

// sameValue compares two element values: floats bit-for-bit in meaning (NaN
// equals NaN, -0 differs from 0), everything else with ==.
func sameValue(want, got any) bool {
	wf, ok1 := want.(float64)
	gf, ok2 := got.(float64)
	if ok1 && ok2 {
		if math.IsNaN(wf) || math.IsNaN(gf) {
			return math.IsNaN(wf) && math.IsNaN(gf)
		}
		return wf == gf && math.Signbit(wf) == math.Signbit(gf)
	}
	return want == got
}

// compareElements checks every element printed by a foreign client against
// want(i), reporting the first few differences.
func compareElements(dt dtype.DataType, n int, want func(i int) any, got []json.RawMessage) error {
	if len(got) != n {
		return fmt.Errorf("foreign client returned %d elements, want %d", len(got), n)
	}
	var diffs []string
	bad := 0
	for i := range n {
		g, err := parseForeign(dt, got[i])
		if err != nil {
			return fmt.Errorf("element %d: %v", i, err)
		}
		if w := want(i); !sameValue(w, g) {
			bad++
			if len(diffs) < 5 {
				diffs = append(diffs, fmt.Sprintf("[%d] want %#v, got %#v", i, w, g))
			}
		}
	}
	if bad > 0 {
		return fmt.Errorf("%d of %d elements differ: %s", bad, n, strings.Join(diffs, "; "))
	}
	return nil
}

// jsonEqual compares two JSON documents by meaning.
func jsonEqual(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

func numElements(shape []int) int {
	n := 1
	for _, s := range shape {
		n *= s
	}
	return n
}

func sameInts(a, b []int) bool {
	return reflect.DeepEqual(append([]int{}, a...), append([]int{}, b...))
}

// rawJSON is s as raw JSON, nil for "".
func rawJSON(s string) json.RawMessage {
	if s == "" {
		return nil
	}
	return json.RawMessage(s)
}
