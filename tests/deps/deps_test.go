// Package deps checks the layer rules of the module's packages: which
// packages each group may import. It reads the imports `go list` reports
// for every package of the module (tests' own imports excepted), so that
// an import against the rules fails here with the importer and the
// import named, in the manner of Go's go/build/deps_test.go.
package deps

import (
	"bufio"
	"bytes"
	"fmt"
	"os/exec"
	"path"
	"strings"
	"testing"
)

const module = "github.com/zarrgw/zarrgw"

// A rule says what the packages matching From may import of this module:
// the patterns of May. A pattern is a package path below the module, or
// one ending in "/..." for it and every package below it. The first rule
// whose From matches a package applies to it; every package of the module
// must match one.
type rule struct {
	From string
	May  []string
}

// rules are the layers of the module, innermost first: core is the
// engine, a library of its own; pluginapi serves and calls plugins over
// core; plugins are extensions written against both; host runs
// configurations of them; cmd is the command line over host.
//
// host is grouped by purpose, each group importing only the groups
// listed before it: internal (helpers no other part of the module sees),
// runtime (a configuration opened into running plugins and stores),
// install (plugins found and installed), commands (what cp, cat and
// inspect do over arrays), serve (the gateway: a serving core, one
// package per face, identity below them, and gateway assembling them),
// app (the operations the command line calls). Leaves (small helpers,
// wire formats) import no other part of host, so they can be moved or
// reused alone.
var rules = []rule{
	{"core/...", []string{"core/..."}},
	{"pluginapi/...", []string{"core/...", "pluginapi/..."}},
	{"plugins/...", []string{"core/...", "pluginapi/...", "plugins/..."}},

	// host/internal: leaves, and telemetry over core and pluginapi
	{"host/internal/atomicfile", nil},
	{"host/internal/logbatch", nil},
	{"host/internal/...", []string{"core/...", "pluginapi/...", "host/internal/..."}},

	// host/runtime
	{"host/runtime/pluginpkg", []string{"host/internal/atomicfile"}},
	// config's parts below it, none importing config: reading HCL safely
	// (a leaf over core), hiding sensitive values (a leaf), the lock file,
	// who may call (principals, identity providers, access lists) and the
	// server block over it.
	{"host/runtime/config/hclread", []string{"core/..."}},
	{"host/runtime/config/redact", nil},
	{"host/runtime/config/lockfile", []string{"core/...", "host/internal/atomicfile", "host/runtime/pluginpkg",
		"host/runtime/config/hclread"}},
	{"host/runtime/config/access", []string{"host/runtime/config/hclread"}},
	{"host/runtime/config/server", []string{"core/...", "host/runtime/config/hclread", "host/runtime/config/access"}},
	{"host/runtime/...", []string{"core/...", "pluginapi/...", "plugins/...", "host/internal/...", "host/runtime/..."}},

	// host/install
	{"host/install/pluginsource", []string{"host/internal/atomicfile", "host/runtime/pluginpkg"}},
	{"host/install/...", []string{"core/...", "pluginapi/...", "plugins/...", "host/internal/...", "host/runtime/...", "host/install/..."}},

	// host/commands
	{"host/commands/render", []string{"core/..."}},
	{"host/commands/transfer/journal", nil},
	{"host/commands/transfer/layout", []string{"core/..."}},
	{"host/commands/transfer/report", []string{"core/...", "host/commands/transfer/layout"}},
	{"host/commands/transfer", []string{"core/...", "host/commands/transfer/..."}},
	{"host/commands/...", []string{"core/...", "pluginapi/...", "plugins/...", "host/internal/...", "host/runtime/...", "host/commands/..."}},

	// host/serve: leaves (wire formats, caches, templates), identity,
	// the serving core (server: route rows, middleware, datasets, errors,
	// access log, metrics, budgets), one package per face, each over the
	// core and never another face (keyapi: the key and array APIs with
	// their index pages; s3api: the S3 API, with STS, s3wire and sigv4
	// below it; pages: the browser pages and pictures), and gateway,
	// which assembles the core and the faces. A new face adds its row.
	{"host/serve/s3api/s3wire", nil},
	{"host/serve/s3api/sigv4", nil},
	{"host/serve/server/cache", nil},
	{"host/serve/pages/ui", nil},
	{"host/serve/pages/picture", []string{"core/..."}},
	{"host/serve/identity/oidc", nil},
	{"host/serve/identity/sts", nil},
	{"host/serve/identity", []string{"host/runtime/config", "host/serve/identity/..."}},
	{"host/serve/server/...", serveBase("host/serve/server/...")},
	{"host/serve/keyapi/...", serveBase("host/serve/server/...", "host/serve/keyapi/...")},
	{"host/serve/s3api/...", serveBase("host/serve/server/...", "host/serve/s3api/...")},
	{"host/serve/pages/...", serveBase("host/serve/server/...", "host/serve/pages/...")},
	{"host/serve/gateway/...", serveBase("host/serve/...")},

	// host/app
	{"host/app/...", []string{"core/...", "pluginapi/...", "plugins/...", "host/..."}},

	// cmd parses flags and prints; what a command does is an operation of
	// host/app, with the types its flags and output need
	{"cmd/...", []string{"host/app"}},
	// Tests, benchmarks and examples use anything of the module.
	{"tests/...", []string{"..."}},
	{"bench/...", []string{"..."}},
	{"examples/...", []string{"..."}},
}

// serveBase is what every package of host/serve above identity may
// import (the layers below serving, and identity) and more, what lies
// beside it; a new slice each call, so no row shares another's.
func serveBase(more ...string) []string {
	return append([]string{"core/...", "pluginapi/...", "plugins/...", "host/internal/...", "host/runtime/...",
		"host/commands/render", "host/serve/identity/..."}, more...)
}

// matches reports whether pkg (a path below the module) is pattern or,
// for a pattern ending in "/...", below it; "..." matches every package.
func matches(pattern, pkg string) bool {
	if pattern == "..." {
		return true
	}
	if dir, ok := strings.CutSuffix(pattern, "/..."); ok {
		return pkg == dir || strings.HasPrefix(pkg, dir+"/")
	}
	return pkg == pattern
}

// ruleFor is the first rule of rs that applies to pkg.
func ruleFor(rs []rule, pkg string) (rule, bool) {
	for _, r := range rs {
		if matches(r.From, pkg) {
			return r, true
		}
	}
	return rule{}, false
}

// violations are the imports of pkg (both paths below the module) that
// rs do not allow, each said as the failure names it.
func violations(rs []rule, pkg string, imports []string) []string {
	r, ok := ruleFor(rs, pkg)
	if !ok {
		return []string{fmt.Sprintf("%s: no rule says what it may import; add one to rules", pkg)}
	}
	var bad []string
	for _, imp := range imports {
		if imp == pkg {
			continue
		}
		allowed := false
		for _, p := range r.May {
			allowed = allowed || matches(p, imp)
		}
		if !allowed {
			bad = append(bad, fmt.Sprintf("%s imports %s, which the rule for %s does not allow (it may import %s)",
				pkg, imp, r.From, mayText(r.May)))
		}
	}
	return bad
}

func mayText(may []string) string {
	if len(may) == 0 {
		return "nothing of this module"
	}
	return strings.Join(may, ", ")
}

// modulePackages lists every package of the module (not the example
// plugin modules, which have go.mod files of their own) with its imports
// of the module, paths below the module.
func modulePackages(t *testing.T) map[string][]string {
	t.Helper()
	cmd := exec.Command("go", "list", "-e", "-f", "{{.ImportPath}}{{range .Imports}} {{.}}{{end}}", module+"/...")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	pkgs := map[string][]string{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 {
			continue
		}
		pkg, ok := below(fields[0])
		if !ok {
			continue
		}
		var imports []string
		for _, imp := range fields[1:] {
			if p, ok := below(imp); ok {
				imports = append(imports, p)
			}
		}
		pkgs[pkg] = imports
	}
	return pkgs
}

// below is path relative to the module, if it is one of its packages.
func below(importPath string) (string, bool) {
	rest, ok := strings.CutPrefix(importPath, module+"/")
	return path.Clean(rest), ok
}

// Every package of the module imports only what its layer's rule allows.
func TestLayers(t *testing.T) {
	pkgs := modulePackages(t)
	if len(pkgs) < 50 {
		t.Fatalf("go list found %d packages of the module, want the whole module", len(pkgs))
	}
	for pkg, imports := range pkgs {
		for _, v := range violations(rules, pkg, imports) {
			t.Error(v)
		}
	}
}

// The rules refuse what they should: the engine importing the host,
// a plugin importing the command line, a leaf of host importing the
// gateway, a package no rule covers; and allow what they should.
func TestRulesRefuse(t *testing.T) {
	for _, c := range []struct {
		pkg, imp string
		refused  bool
	}{
		{"core/meta", "host/runtime/config", true},
		{"core/meta", "pluginapi", true},
		{"plugins/stores/fsstore", "cmd/zarrgw", true},
		{"plugins/stores/fsstore", "host/runtime/stack", true},
		{"host/serve/s3api/sigv4", "host/serve/gateway", true},
		{"host/commands/render", "host/serve/gateway", true},
		{"host/runtime/pluginpkg", "host/runtime/config", true},
		{"host/runtime/config", "host/install", true},
		{"host/runtime/config/hclread", "host/runtime/config", true},
		{"host/runtime/config/lockfile", "host/runtime/config", true},
		{"host/runtime/config/redact", "host/runtime/config/hclread", true},
		{"host/runtime/config/access", "host/runtime/config/server", true},
		{"host/runtime/config/server", "host/runtime/config", true},
		{"host/runtime/config/server", "host/runtime/config/access", false},
		{"host/install", "host/serve/gateway", true},
		{"host/serve/gateway", "host/app", true},
		{"host/commands/transfer", "host/runtime/stack", true},
		{"cmd/zarrgw", "host/serve/gateway", true},
		// a face imports the serving core, never another face
		{"host/serve/s3api", "host/serve/keyapi", true},
		{"host/serve/keyapi", "host/serve/pages/picture", true},
		{"host/serve/pages", "host/serve/s3api/s3wire", true},
		{"host/serve/server", "host/serve/keyapi", true},
		{"host/serve/server", "host/serve/gateway", true},
		{"host/serve/views", "host/serve/server", true}, // a new face without its row
		{"cmd/zarrgw", "host/internal/telemetry", true},
		{"cmd/zarrgw", "tests/support/binary", true},
		{"cmd/zarrgw", "core/array", true},
		{"cmd/zarrgw", "host/runtime/registry", true},
		{"cmd/zarrgw", "host/app/location", true},
		{"cmd/zarrgw", "host/commands/transfer", true},
		{"host/commands/transfer/layout", "host/commands/transfer", true},
		{"host/commands/transfer/journal", "core/store", true},
		{"core/meta", "core/dtype", false},
		{"host/serve/gateway", "host/serve/s3api/sigv4", false},
		{"host/serve/keyapi", "host/serve/server", false},
		{"host/serve/s3api", "host/serve/s3api/sigv4", false},
		{"host/serve/pages", "host/serve/pages/picture", false},
		{"host/serve/gateway", "host/serve/keyapi", false},
		{"host/app", "host/serve/gateway", false},
		{"cmd/zarrgw", "host/app", false},
		{"host/install", "host/runtime/config", false},
		{"plugins/builtin", "plugins/stores/fsstore", false},
		{"tests/cli", "cmd/zarrgw", false},
	} {
		got := violations(rules, c.pkg, []string{c.imp})
		if refused := len(got) > 0; refused != c.refused {
			t.Errorf("%s importing %s: refused %v, want %v (%q)", c.pkg, c.imp, refused, c.refused, got)
		}
	}
	if got := violations(rules, "newtop/pkg", nil); len(got) != 1 || !strings.Contains(got[0], "no rule") {
		t.Errorf("a package no rule covers: %q, want it named", got)
	}
}
