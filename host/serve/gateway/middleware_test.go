package gateway_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// budgetCalls are the calls that take room from a budget or admit a
// request by the rate limits.
var budgetCalls = map[string]bool{"reserve": true, "grow": true, "Admit": true, "admitRate": true, "Acquire": true, "TryAcquire": true}

// middlewareFuncs are the only functions allowed to make them: the
// middleware (take, authenticate, admitRate), the budget itself (reserve,
// acquire, grow) and a body's reader, which grows its room as its bytes
// arrive (hold).
var middlewareFuncs = map[string]bool{"Take": true, "authenticate": true, "admitRate": true,
	"reserve": true, "acquire": true, "grow": true, "hold": true}

// servingPackages are the packages of host/serve whose handlers a
// request reaches: the core, the faces and their assembly.
var servingPackages = []string{"server", "gateway", "s3api", "pages", "keyapi"}

// Budgets and rate limits are applied by the middleware from the route
// rows, never by a handler: a reservation or a limiter call anywhere
// else in the serving core or a face fails here, naming the function
// that makes it.
func TestBudgetsAndLimitsOnlyInMiddleware(t *testing.T) {
	var files []string
	for _, dir := range servingPackages {
		found, err := filepath.Glob(filepath.Join("..", dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, found...)
	}
	fset := token.NewFileSet()
	checked := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(fset, name, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			checked++
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				sel, ok := call.Fun.(*ast.SelectorExpr)
				if ok && budgetCalls[sel.Sel.Name] && !middlewareFuncs[fn.Name.Name] {
					t.Errorf("%s: %s calls %s: budgets and rate limits belong to the middleware (a row's cost or access)",
						fset.Position(call.Pos()), fn.Name.Name, sel.Sel.Name)
				}
				return true
			})
		}
	}
	if checked < 100 {
		t.Fatalf("checked %d functions, want the whole of the serving packages", checked)
	}
}
