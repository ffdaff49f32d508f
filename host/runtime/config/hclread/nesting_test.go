package hclread_test

import (
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2/hclparse"
	"github.com/zclconf/go-cty/cty"

	"github.com/zarrgw/zarrgw/host/runtime/config/hclread"
)

// brackets is an attribute whose value nests n lists.
func brackets(n int) []byte {
	return []byte("x = " + strings.Repeat("[", n) + strings.Repeat("]", n) + "\n")
}

// MaxNesting levels are read; one more is refused at the token that
// crosses the limit, before the parser descends into it.
func TestCheckNestingBound(t *testing.T) {
	if diags := hclread.CheckNesting(brackets(hclread.MaxNesting), "a.hcl"); diags.HasErrors() {
		t.Errorf("%d levels refused: %v", hclread.MaxNesting, diags)
	}
	diags := hclread.CheckNesting(brackets(hclread.MaxNesting+1), "a.hcl")
	if !diags.HasErrors() || diags[0].Summary != "Nesting too deep" {
		t.Fatalf("%d levels: %v", hclread.MaxNesting+1, diags)
	}
	if col := diags[0].Subject.Start.Column; col != len("x = ")+hclread.MaxNesting+1 {
		t.Errorf("refused at column %d, want the bracket that crosses the limit", col)
	}
}

// ParseSource keeps, for the snippet, only the source up to the token
// that crossed the limit.
func TestParseSourceKeepsBeginning(t *testing.T) {
	p := hclparse.NewParser()
	src := brackets(80000)
	if f, diags := hclread.ParseSource(p, src, "a.hcl"); f != nil || !diags.HasErrors() {
		t.Fatalf("parsed a source nested 80000 deep: %v", diags)
	}
	if kept := len(p.Files()["a.hcl"].Bytes); kept >= len(src) || kept > 1024 {
		t.Errorf("kept %d of %d bytes for the snippet", kept, len(src))
	}
}

// An environment variable's value is read as the type of the default,
// and is bounded as a file is.
func TestEnvValue(t *testing.T) {
	list := cty.ListVal([]cty.Value{cty.StringVal("*")})
	for _, c := range []struct {
		text string
		def  cty.Value
		want cty.Value
	}{
		{"abc", cty.NilVal, cty.StringVal("abc")},
		{"12", cty.NumberIntVal(1), cty.NumberIntVal(12)},
		{"true", cty.False, cty.True},
		{`["a", "b"]`, list, cty.TupleVal([]cty.Value{cty.StringVal("a"), cty.StringVal("b")})},
	} {
		got, err := hclread.EnvValue(c.text, c.def)
		if err != nil || !got.RawEquals(c.want) {
			t.Errorf("EnvValue(%q) = %#v, %v; want %#v", c.text, got, err, c.want)
		}
	}
	if _, err := hclread.EnvValue(string(brackets(80000)[4:]), list); err == nil || !strings.Contains(err.Error(), "Nesting too deep") {
		t.Errorf("deep value: %v", err)
	}
	if _, err := hclread.EnvValue("var.x", list); err == nil {
		t.Error("a reference in an environment value was accepted")
	}
}
