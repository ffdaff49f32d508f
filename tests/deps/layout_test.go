package deps

import (
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// layoutRows are the paths the README's "Layout" table names in its first
// column: each a directory, or a pattern with "*" for one path element.
func layoutRows(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, table, ok := strings.Cut(string(b), "\n## Layout\n")
	if !ok {
		t.Fatal(`README.md has no "## Layout" section`)
	}
	table, _, _ = strings.Cut(table, "\n## ")
	code := regexp.MustCompile("`([^`]+)`")
	var rows []string
	for line := range strings.Lines(table) {
		first, _, ok := strings.Cut(strings.TrimPrefix(line, "| "), " |")
		if !ok || !strings.HasPrefix(line, "| `") {
			continue
		}
		for _, m := range code.FindAllStringSubmatch(first, -1) {
			rows = append(rows, strings.TrimSuffix(m[1], "/"))
		}
	}
	if len(rows) < 20 {
		t.Fatalf("README's Layout table names %d paths, want the module's packages", len(rows))
	}
	return rows
}

// covers reports whether row names pkg or a directory above it.
func covers(row, pkg string) bool {
	for {
		if ok, _ := path.Match(row, pkg); ok {
			return true
		}
		parent := path.Dir(pkg)
		if parent == "." || parent == pkg {
			return false
		}
		pkg = parent
	}
}

// The README's Layout table matches the tree: every path it names exists,
// and every package of the module is named by a row, itself or a
// directory above it, so a package added or moved is described there.
func TestReadmeLayout(t *testing.T) {
	rows := layoutRows(t)
	for _, row := range rows {
		matches, err := filepath.Glob(filepath.Join("..", "..", filepath.FromSlash(row)))
		if err != nil || len(matches) == 0 {
			t.Errorf("README's Layout table names %s, which does not exist", row)
		}
	}
	for pkg := range modulePackages(t) {
		covered := false
		for _, row := range rows {
			covered = covered || covers(row, pkg)
		}
		if !covered {
			t.Errorf("package %s is in no row of README's Layout table (nor a directory above it)", pkg)
		}
	}
}
