package deps

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// maxHostPackageLines bounds a package of host/ (its non-test Go, generated
// files aside): past it, a package holds more than one thing a reader
// keeps in mind at once, and it is time to split it by what it holds.
const maxHostPackageLines = 3000

// No package of host/ grows past maxHostPackageLines.
func TestHostPackageSize(t *testing.T) {
	cmd := exec.Command("go", "list", "-f", "{{.ImportPath}} {{.Dir}}{{range .GoFiles}} {{.}}{{end}}", module+"/host/...")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	n := 0
	for line := range strings.Lines(string(out)) {
		fields := strings.Fields(line)
		if len(fields) < 2 {
			continue
		}
		n++
		lines := 0
		for _, name := range fields[2:] {
			lines += goLines(t, filepath.Join(fields[1], name))
		}
		if lines > maxHostPackageLines {
			pkg, _ := below(fields[0])
			t.Errorf("%s has %d lines of Go (tests and generated files aside), more than %d: split it by what it holds", pkg, lines, maxHostPackageLines)
		}
	}
	if n < 20 {
		t.Fatalf("go list found %d packages in host/, want all of them", n)
	}
}

// goLines counts the lines of a Go file, 0 for a generated one.
func goLines(t *testing.T, file string) int {
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	lines := 0
	for sc.Scan() {
		if lines < 20 && strings.HasPrefix(sc.Text(), "// Code generated") && strings.HasSuffix(sc.Text(), "DO NOT EDIT.") {
			return 0
		}
		lines++
	}
	return lines
}
