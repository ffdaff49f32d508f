package access

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"

	"github.com/zarrgw/zarrgw/host/runtime/config/hclread"
)

// published are credentials that zarrgw's examples and documentation
// print, or that anyone can compute: a principal whose secret or token
// hash is one of them is anybody's. Every credential an example shows
// (config.hcl.example, README.md, the docs) belongs here; token hashes in
// lower-case hex.
var published = map[string]string{
	"change-me": "the placeholder secret config.hcl.example used to ship",
	"9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08": `the SHA-256 of "test", the token hash config.hcl.example used to ship`,
	"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855": "the SHA-256 of the empty token",
}

// checkSecret refuses an empty or published value of a principal's
// credential attribute a (what names it in messages), saying which
// environment variable to set. value is trimmed; token hashes lower-case.
func (d *Decoder) checkSecret(a *hcl.Attribute, what, principal, value string) *hcl.Diagnostic {
	if value == "" {
		return hclread.ErrorAt(a.Expr.Range(), "Empty "+what,
			"Principal %q: %s is empty, and an empty credential is anybody's. %s", principal, a.Name, d.setHint(a.Expr, a.Name, true))
	}
	if why, ok := published[value]; ok {
		return hclread.ErrorAt(a.Expr.Range(), "Published secret",
			"Principal %q: %s is %s, which anyone can read. Choose one of your own. %s", principal, a.Name, why, d.setHint(a.Expr, a.Name, false))
	}
	return nil
}

// setHint says where the value of expr, an empty one or not, comes from
// and how to set it.
func (d *Decoder) setHint(expr hcl.Expression, attr string, empty bool) string {
	what := "the secret"
	if attr == "token_sha256" {
		what = `the SHA-256 of a token of your own (printf %s "$TOKEN" | sha256sum)`
	}
	name, ok := hclread.OnlyVariable(expr)
	switch {
	case !ok && len(expr.Variables()) == 0:
		return fmt.Sprintf("Write %s instead.", what)
	case !ok:
		return fmt.Sprintf("Set %s from a variable holding %s.", attr, what)
	}
	env, set := d.vars(name)
	switch {
	case env == "":
		return fmt.Sprintf("It is the default of var.%s: give the variable env = \"NAME\" and set that environment variable to %s.", name, what)
	case set && empty:
		return fmt.Sprintf("It comes from var.%s, and %s is set but empty: set %s to %s.", name, env, env, what)
	case set:
		return fmt.Sprintf("It comes from var.%s, through %s: set %s to %s.", name, env, env, what)
	}
	return fmt.Sprintf("It is the default of var.%s: set the environment variable %s to %s.", name, env, what)
}

// holder is the principal holding a credential, and where.
type holder struct {
	principal string
	at        hcl.Range
}

// claim records that principal holds credential value of kind (as it
// appears in messages), and refuses one another principal holds: a
// request bearing it would be taken for either's.
func (d *Decoder) claim(kind, value, principal string, at hcl.Range) *hcl.Diagnostic {
	key := kind + "\x00" + value
	first, ok := d.credentials[key]
	if !ok {
		d.credentials[key] = holder{principal, at}
		return nil
	}
	return hclread.ErrorAt(at, "Two principals with one "+kind,
		"Principals %q and %q have the same %s (%q's at %s): a request bearing it would be taken for either's. Give each principal its own.",
		first.principal, principal, kind, first.principal, first.at)
}
