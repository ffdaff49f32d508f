// Package codectest holds helpers shared by the tests of the bundled codec
// packages: fixture access, expected values, random arrays of every data
// type, round-trip checks and allocation guards for decompression bombs.
package codectest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// FixturesDir returns the shared fixture directory ($ZARRGW_FIXTURES, or
// ../shared/fixtures next to the module root). When it is missing the test
// is skipped loudly, or fails when CI=true.
func FixturesDir(t testing.TB) string {
	t.Helper()
	dir := os.Getenv("ZARRGW_FIXTURES")
	if dir == "" {
		if root, ok := moduleRoot(); ok {
			dir = filepath.Join(root, "..", "shared", "fixtures")
		}
	}
	if dir != "" {
		if st, err := os.Stat(filepath.Join(dir, "expected.json")); err == nil && !st.IsDir() {
			return dir
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("fixtures not found (dir %q); set ZARRGW_FIXTURES", dir)
	}
	t.Logf("!!! FIXTURE TEST DID NOT RUN: fixtures not found (dir %q); set ZARRGW_FIXTURES", dir)
	t.SkipNow()
	return ""
}

func moduleRoot() (string, bool) {
	dir, err := os.Getwd()
	if err != nil {
		return "", false
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false
		}
		dir = parent
	}
}

// ReadFixture returns the bytes of a fixture file, path relative to the
// fixture directory.
func ReadFixture(t testing.TB, rel string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(FixturesDir(t), filepath.FromSlash(rel)))
	if err != nil {
		t.Fatalf("read fixture: %v", err)
	}
	return b
}

// Expectation is one array's entry "expect" in expected.json.
type Expectation struct {
	Kind       string            `json:"kind"`
	Start      float64           `json:"start"`
	Step       float64           `json:"step"`
	IndexOrder string            `json:"index_order"`
	Values     []json.RawMessage `json:"values"`
	Tolerance  float64           `json:"tolerance"`
	SHA256     string            `json:"sha256"`
	Count      int               `json:"count"`
	Head       []json.RawMessage `json:"head"`
}

// ArrayEntry is one array of expected.json.
type ArrayEntry struct {
	Shape      []int       `json:"shape"`
	ChunkShape []int       `json:"chunk_shape"`
	DType      string      `json:"dtype"`
	Expect     Expectation `json:"expect"`
}

var (
	expectedOnce sync.Once
	expectedDoc  struct {
		Arrays map[string]ArrayEntry `json:"arrays"`
	}
	expectedErr error
)

// Expected returns the expected.json entry of a fixture array.
func Expected(t testing.TB, arrayPath string) ArrayEntry {
	t.Helper()
	dir := FixturesDir(t)
	expectedOnce.Do(func() {
		var b []byte
		if b, expectedErr = os.ReadFile(filepath.Join(dir, "expected.json")); expectedErr == nil {
			expectedErr = json.Unmarshal(b, &expectedDoc)
		}
	})
	if expectedErr != nil {
		t.Fatalf("expected.json: %v", expectedErr)
	}
	e, ok := expectedDoc.Arrays[arrayPath]
	if !ok {
		t.Fatalf("expected.json has no array %q", arrayPath)
	}
	return e
}
