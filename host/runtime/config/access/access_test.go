package access_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclparse"
	"github.com/zclconf/go-cty/cty"

	"github.com/zarrgw/zarrgw/host/runtime/config/access"
	"github.com/zarrgw/zarrgw/host/runtime/config/hclread"
)

const tokenA = "d6d21e6d4a9c969670e67b5ea4b746242a23ad9ec2e8eb78c8d36f577f00581e"

// decode reads src's principal blocks, then its access blocks into one
// list each, as a dataset named "d" (read-only if readOnly) would. var.t
// holds the SHA-256 of "test", from the environment variable T.
func decode(t *testing.T, src string, readOnly bool) ([]access.Principal, []access.Access, *access.Decoder, hcl.Diagnostics) {
	t.Helper()
	f, diags := hclparse.NewParser().ParseHCL([]byte(src), "test.hcl")
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	content, diags := f.Body.Content(&hcl.BodySchema{Blocks: []hcl.BlockHeaderSchema{
		{Type: "principal", LabelNames: []string{"name"}}, {Type: "access"}}})
	ev := hclread.NewEvaluator(hclread.Scope{Variables: map[string]cty.Value{
		"t": cty.StringVal("9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08")}})
	d := access.NewDecoder(ev, nil, func(name string) (string, bool) { return strings.ToUpper(name), true })
	ps, more := d.Principals(content.Blocks.OfType("principal"))
	diags = append(diags, more...)
	var out []access.Access
	for _, b := range content.Blocks.OfType("access") {
		a := access.Access{Read: []string{access.Anyone}}
		diags = append(diags, d.Lists(b, "d", readOnly, &a)...)
		out = append(out, a)
	}
	return ps, out, d, diags
}

// wantError checks that diags hold one error, which says every one of want.
func wantError(t *testing.T, diags hcl.Diagnostics, want ...string) {
	t.Helper()
	if len(diags) != 1 || !diags.HasErrors() {
		t.Fatalf("want one error, got %v", diags)
	}
	for _, w := range want {
		if text := diags[0].Summary + ": " + diags[0].Detail; !strings.Contains(text, w) {
			t.Errorf("%q does not say %q", text, w)
		}
	}
}

// An access block sets the lists it names and leaves the others as they
// were: without read, anyone still reads.
func TestLists(t *testing.T) {
	_, lists, _, diags := decode(t, `access {
  write = ["ops"]
}
access {
  read  = ["ops", "*"]
  write = []
}
`, false)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	want := []access.Access{{Read: []string{"*"}, Write: []string{"ops"}}, {Read: []string{"ops", "*"}, Write: nil}}
	if !reflect.DeepEqual(lists, want) {
		t.Errorf("got %+v, want %+v", lists, want)
	}
}

func TestListErrors(t *testing.T) {
	_, _, _, diags := decode(t, "access {\n  read = [\" \"]\n}\n", false)
	wantError(t, diags, "Empty principal", `Dataset "d": access.read`)
	_, _, _, diags = decode(t, "access {\n  write = [\"ops\"]\n}\n", true)
	wantError(t, diags, "Write access to a read-only dataset")
}

// Access lists may name the principals declared, a principal whose block
// failed included (its own error says what is wrong), and "*".
func TestKnownPrincipals(t *testing.T) {
	ps, _, d, diags := decode(t, `principal "ops" {
  token_sha256 = "`+tokenA+`"
}
principal "broken" {
}
`, false)
	wantError(t, diags, "Principal without credentials")
	if len(ps) != 1 || ps[0].Name != "ops" || !ps[0].HasToken {
		t.Fatalf("principals %+v", ps)
	}
	if diags := d.KnownPrincipals(hcl.Range{}, "metrics: read", []string{"ops", "broken", access.Anyone}); len(diags) != 0 {
		t.Errorf("declared principals refused: %v", diags)
	}
	wantError(t, d.KnownPrincipals(hcl.Range{}, "metrics: read", []string{"opps"}), "Unknown principal", `Did you mean "ops"?`)
}

// Two principals may not share a credential; a published one is refused
// with where its value comes from and what to set.
func TestCredentials(t *testing.T) {
	_, _, _, diags := decode(t, `principal "a" {
  token_sha256 = "`+tokenA+`"
}
principal "b" {
  token_sha256 = "`+strings.ToUpper(tokenA)+`"
}
`, false)
	wantError(t, diags, "Two principals with one token", `"a"`, `"b"`)
	_, _, _, diags = decode(t, "principal \"a\" {\n  token_sha256 = var.t\n}\n", false)
	wantError(t, diags, "Published secret", "It comes from var.t, through T: set T to")
}
