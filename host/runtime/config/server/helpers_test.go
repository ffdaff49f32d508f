package server_test

import (
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclparse"

	"github.com/zarrgw/zarrgw/host/runtime/config/access"
	"github.com/zarrgw/zarrgw/host/runtime/config/hclread"
	"github.com/zarrgw/zarrgw/host/runtime/config/server"
)

const testFile = "/etc/zarrgw/test.hcl"

// parse decodes the principal and server blocks of src as a
// configuration does: the principals first, which access lists may name.
func parse(t *testing.T, src string) (server.Server, *hclparse.Parser, hcl.Diagnostics) {
	t.Helper()
	p := hclparse.NewParser()
	s := server.DefaultServer()
	f, diags := hclread.ParseSource(p, []byte(src), testFile)
	if diags.HasErrors() {
		return s, p, diags
	}
	content, diags := f.Body.Content(&hcl.BodySchema{Blocks: []hcl.BlockHeaderSchema{
		{Type: "principal", LabelNames: []string{"name"}}, {Type: "server"}}})
	ev := hclread.NewEvaluator(hclread.Scope{Dir: "/etc/zarrgw"})
	acc := access.NewDecoder(ev, nil, func(string) (string, bool) { return "", false })
	_, more := acc.Principals(content.Blocks.OfType("principal"))
	diags = append(diags, more...)
	return s, p, append(diags, server.NewDecoder(ev, acc).Decode(content.Blocks.OfType("server"), &s)...)
}

// mustParse parses src and fails on any error.
func mustParse(t *testing.T, src string) server.Server {
	t.Helper()
	s, p, diags := parse(t, src)
	if diags.HasErrors() {
		t.Fatalf("unexpected errors:\n%s", render(p, diags))
	}
	return s
}

func render(p *hclparse.Parser, diags hcl.Diagnostics) string {
	var b strings.Builder
	_ = hcl.NewDiagnosticTextWriter(&b, p.Files(), 78, false).WriteDiagnostics(diags)
	return b.String()
}

// wantOneError checks that diags hold exactly one error, on line, whose
// summary and detail contain every string in want.
func wantOneError(t *testing.T, p *hclparse.Parser, diags hcl.Diagnostics, line int, want ...string) {
	t.Helper()
	var errs []*hcl.Diagnostic
	for _, d := range diags {
		if d.Severity == hcl.DiagError {
			errs = append(errs, d)
		}
	}
	if len(errs) != 1 {
		t.Fatalf("want 1 error, got %d:\n%s", len(errs), render(p, diags))
	}
	d := errs[0]
	if d.Subject == nil || d.Subject.Start.Line != line || d.Subject.Filename != testFile {
		t.Errorf("error at %v, want %s line %d:\n%s", d.Subject, testFile, line, render(p, diags))
	}
	text := d.Summary + "\n" + d.Detail
	for _, w := range want {
		if !strings.Contains(text, w) {
			t.Errorf("error does not mention %q:\n%s", w, text)
		}
	}
}
