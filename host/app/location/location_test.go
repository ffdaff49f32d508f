package location

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zarrgw/zarrgw/host/runtime/registry"
)

// A LOCATION is a directory, or a URL whose scheme a store of the set
// declares; anything else is refused with the schemes that are known.
func TestOpen(t *testing.T) {
	ctx := context.Background()
	parts := registry.Bundled().InProcess()
	dir := t.TempDir()
	for _, loc := range []string{dir, "file://" + dir} {
		s, err := Open(ctx, parts, loc)
		if err != nil {
			t.Fatalf("%s: %v", loc, err)
		}
		s.Close()
	}
	file := filepath.Join(dir, "f")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for loc, want := range map[string]string{
		"gs://bucket/x":                     `unsupported scheme "gs" (known: az://, file://, http://, https://, s3://)`,
		filepath.Join(dir, "missing"):       "no such file",
		file:                                "not a directory",
		"file://" + filepath.Join(dir, "m"): "no such file",
	} {
		if _, err := Open(ctx, parts, loc); err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), loc) {
			t.Errorf("%s: %v, want %q naming the location", loc, err, want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "missing")); err == nil {
		t.Error("opening a missing directory created it")
	}
}
