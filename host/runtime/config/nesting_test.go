package config_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zarrgw/zarrgw/host/runtime/config"
)

// deep builds an attribute nested n times by one of the constructs HCL's
// parser descends into recursively.
var deep = map[string]func(n int) string{
	"brackets":    func(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) },
	"braces":      func(n int) string { return strings.Repeat("{a=", n) + "1" + strings.Repeat("}", n) },
	"parentheses": func(n int) string { return strings.Repeat("(", n) + "1" + strings.Repeat(")", n) },
	"templates":   func(n int) string { return strings.Repeat(`"${`, n) + "1" + strings.Repeat(`}"`, n) },
	"template ifs": func(n int) string {
		return `"` + strings.Repeat("%{if true}", n) + "x" + strings.Repeat("%{endif}", n) + `"`
	},
	"negations":    func(n int) string { return strings.Repeat("!", n) + "true" },
	"conditionals": func(n int) string { return strings.Repeat("true ? 1 : ", n) + "2" },
	"sums":         func(n int) string { return "1" + strings.Repeat("+1", n) },
	"splats":       func(n int) string { return "[[1]]" + strings.Repeat("[*]", n) },
	// A for expression in braces reads across lines, unlike an object.
	"negations over lines in a for": func(n int) string {
		return "{for k in [1] : k => " + strings.Repeat("!\n", n) + "true}"
	},
}

// crashing is how deep each construct is nested in the test: beyond what
// overflowed the 1 GB Go stack before the limit (80 000 brackets did; the
// cheaper constructs took 200 000 to 600 000).
var crashing = map[string]int{
	"brackets": 80000, "braces": 80000, "parentheses": 80000, "templates": 80000,
	"template ifs": 200000, "negations": 300000, "conditionals": 400000, "sums": 600000,
	"splats": 200000, "negations over lines in a for": 300000,
}

// Nesting that would exhaust the parser's stack (a Go stack overflow,
// which kills the process) is refused before parsing, with the line where
// it crosses the limit, and a snippet that stops there.
func TestDeepNestingIsRefused(t *testing.T) {
	for name, build := range deep {
		t.Run(name, func(t *testing.T) {
			src := "server {\n  listen = \":80\"\n  cors_origins = " + build(crashing[name]) + "\n}\n"
			cfg, diags := parse(t, src, config.Options{})
			line := 3
			if name == "negations over lines in a for" {
				line = 256 // the 254th "!": the server block, the braces and the [1] after "in" make 257
			}
			wantOneError(t, cfg, diags, line, "Nesting too deep", "256")
			if out := render(cfg, diags); len(out) > 4096 {
				t.Errorf("the diagnostic prints %d bytes:\n%.1000s", len(out), out)
			}
		})
	}
}

// Loading a file, its lock file and an environment variable's value are
// guarded the same way; "zarrgw validate" loads so.
func TestDeepNestingInFiles(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "zarrgw.hcl")
	if err := os.WriteFile(path, []byte("x = "+deep["brackets"](80000)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	_, err := config.Check(path, config.Options{Catalog: testCatalog(), LookupEnv: noEnv}, &out)
	if err == nil || !strings.Contains(err.Error(), path+":1,") || !strings.Contains(out.String(), "Nesting too deep") {
		t.Errorf("config file: %v\n%.2000s", err, out.String())
	}

	if err := os.WriteFile(path, []byte("server {\n  listen = \":80\"\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	lock := filepath.Join(dir, config.LockFileName)
	if err := os.WriteFile(lock, []byte("plugin \"a/b\" {\n  sha256 = "+deep["braces"](80000)+"\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, diags := config.LoadWith(path, config.Options{Catalog: testCatalog(), LookupEnv: noEnv})
	if d := errorsOf(diags); len(d) != 1 || d[0].Summary != "Nesting too deep" || d[0].Subject.Filename != lock || d[0].Subject.Start.Line != 2 {
		t.Errorf("lock file:\n%.2000s", render(cfg, diags))
	}
	if _, diags := config.ParseLock([]byte("x = "+deep["parentheses"](80000)), "lock.hcl"); !strings.Contains(diags.Error(), "Nesting too deep") {
		t.Errorf("ParseLock: %.300s", diags.Error())
	}

	env := envOf(map[string]string{"ORIGINS": deep["brackets"](80000)})
	src := "variable \"origins\" {\n  default = [\"*\"]\n  env     = \"ORIGINS\"\n}\n"
	cfg, diags = parse(t, src, config.Options{LookupEnv: env})
	wantOneError(t, cfg, diags, 3, "ORIGINS", "Nesting too deep")
}

// Deep but reasonable nesting is read: the limit counts levels a person
// writes, not the length of a list or of a template.
func TestReasonableNestingIsRead(t *testing.T) {
	var commented string
	for i := range 300 {
		commented += fmt.Sprintf("    n%d = -1 # each line ends its expression, even in a comment\n", i)
	}
	src := fsStore + `dataset "d" {
  store = store.fs.a
  codec "free" {
    nested = ` + deep["brackets"](200) + `
    object = ` + deep["braces"](100) + `
    sum    = 1` + strings.Repeat(" + 1", 150) + `
    list   = [` + strings.Repeat("-1, !true, (1 + 2) * 3, ", 500) + `0]
    text   = "` + strings.Repeat("%{if true}${1 + 1}%{endif}", 500) + `"
` + commented + `    index  = ` + deep["brackets"](100)[:100] + "1" + deep["brackets"](100)[100:] + strings.Repeat("[0]", 100) + `
  }
}
`
	cfg := mustParse(t, src, config.Options{})
	if len(cfg.Datasets) != 1 || len(cfg.Datasets[0].Codecs) != 1 {
		t.Fatalf("datasets %+v", cfg.Datasets)
	}
}
