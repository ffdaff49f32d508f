// Package codectest holds helpers shared by the tests of the bundled codec
// packages: fixture access, expected values, random arrays of every data
// type, round-trip checks and allocation guards for decompression bombs.
package codectest

import (
	"encoding/json"
	"github.com/zarrgw/zarrgw/tests/fixtures"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// FixturesDir returns the shared fixture directory (see fixtures.Dir).
func FixturesDir(t testing.TB) string {
	t.Helper()
	return fixtures.Dir(t)
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
