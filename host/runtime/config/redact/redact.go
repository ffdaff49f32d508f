// Package redact hides the values of a configuration's sensitive
// variables wherever zarrgw prints them: in diagnostics, in text such as a
// report's fields, in errors and in log records.
package redact

import (
	"math/big"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
)

// Diagnostics are printed, logged and pasted into issues, so the value of
// a sensitive variable must never show in one. Messages quote evaluated
// values (`"x" is not HOST:PORT`) all over the configuration's decoder,
// HCL's print the values of the variables an expression refers to, and
// messages yet to be written will too: rather than trust each to ask,
// every diagnostic the decoder returns is rewritten once, naming the
// variable instead.

// Values are the values of the sensitive variables, by variable name: a
// variable's value, and an environment variable's text that did not make
// one.
type Values map[string][]cty.Value

// Note records value v of sensitive variable name.
func (vs Values) Note(name string, v cty.Value) { vs[name] = append(vs[name], v) }

// Redactor hides the values of sensitive variables. A nil Redactor hides
// nothing.
type Redactor struct {
	// text replaces each string of a sensitive value (list elements and
	// object keys included) by the variable's name: quoted, anywhere;
	// bare, anywhere if it is at least minBare long.
	text *strings.Replacer
	// near finds, by variable name, the value's numbers and its shorter
	// strings, as words. They are replaced only in diagnostics about an
	// expression naming the variable: "0" or "on" appear in other
	// messages, as parts of their words too.
	near map[string]*regexp.Regexp
	// whole names, by each string of a sensitive value, its variable: a
	// text that is the value alone is hidden whatever its length.
	whole map[string]string
	// file and src are the configuration and its source, for finding
	// those expressions.
	file string
	src  []byte
	// ctx is the decoder's evaluation context; safe is the same with the
	// sensitive variables unknown, which HCL's diagnostic printer skips.
	ctx, safe *hcl.EvalContext
}

// minBare is the length from which a sensitive string is replaced
// wherever it appears, not only where its variable is named.
const minBare = 4

// New builds the Redactor of the sensitive values vals; nil when there
// are none. ctx is the evaluation context the diagnostics were made with;
// file and src are the configuration file and its source, in which
// diagnostics point at expressions naming a variable.
func New(vals Values, ctx *hcl.EvalContext, file string, src []byte) *Redactor {
	if len(vals) == 0 {
		return nil
	}
	r := &Redactor{near: map[string]*regexp.Regexp{}, whole: map[string]string{}, ctx: ctx, safe: safeContext(ctx, vals),
		file: file, src: src}
	var pairs [][2]string
	for name, vals := range vals {
		var strs, words []string
		for _, v := range vals {
			leaves(v, &strs, &words)
		}
		for _, s := range strs {
			r.whole[s] = name
			pairs = append(pairs, textForms(s, "the value of var."+name)...)
			if len(s) < minBare {
				words = append(words, s)
			}
		}
		if re := wordsPattern(words); re != nil {
			r.near[name] = re
		}
	}
	r.text = newReplacer(pairs)
	return r
}

// textForms are the replacements hiding string s: quoted (%q), and bare
// when it is long enough, as written or with %q's escapes.
func textForms(s, named string) [][2]string {
	q := strconv.Quote(s)
	forms := [][2]string{{q, named}}
	if len(s) >= minBare {
		forms = append(forms, [2]string{q[1 : len(q)-1], "(" + named + ")"}, [2]string{s, "(" + named + ")"})
	}
	return forms
}

// newReplacer replaces the longest strings first, so that a secret
// holding another is hidden whole.
func newReplacer(pairs [][2]string) *strings.Replacer {
	sort.SliceStable(pairs, func(i, j int) bool { return len(pairs[i][0]) > len(pairs[j][0]) })
	var flat []string
	for _, p := range pairs {
		flat = append(flat, p[0], p[1])
	}
	return strings.NewReplacer(flat...)
}

// wordsPattern matches any of words where it is not part of a longer
// word; nil for none.
func wordsPattern(words []string) *regexp.Regexp {
	var alts []string
	for _, w := range words {
		if w == "" {
			continue
		}
		p := regexp.QuoteMeta(w)
		if isWordByte(w[0]) {
			p = `\b` + p
		}
		if isWordByte(w[len(w)-1]) {
			p += `\b`
		}
		alts = append(alts, p)
	}
	if len(alts) == 0 {
		return nil
	}
	sort.SliceStable(alts, func(i, j int) bool { return len(alts[i]) > len(alts[j]) })
	return regexp.MustCompile(strings.Join(alts, "|"))
}

func isWordByte(b byte) bool {
	return b == '_' || '0' <= b && b <= '9' || 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z'
}

// leaves collects the strings (object keys included) and the numbers, in
// the forms messages print them, of v.
func leaves(v cty.Value, strs, nums *[]string) {
	switch {
	case v.IsNull() || !v.IsKnown():
	case v.Type() == cty.String:
		if s := v.AsString(); s != "" {
			*strs = append(*strs, s)
		}
	case v.Type() == cty.Number:
		*nums = append(*nums, numberForms(v)...)
	case v.CanIterateElements():
		for it := v.ElementIterator(); it.Next(); {
			k, e := it.Element()
			if k.Type() == cty.String {
				leaves(k, strs, nums)
			}
			leaves(e, strs, nums)
		}
	}
}

// numberForms are the texts of |v| in messages: exact decimal (JSON,
// cty) and Go's %v of a float64. Without its sign, the digits after a
// minus sign are found too.
func numberForms(v cty.Value) []string {
	bf := new(big.Float).Abs(v.AsBigFloat())
	exact, short := bf.Text('f', -1), ""
	if f, _ := bf.Float64(); strconv.FormatFloat(f, 'g', -1, 64) != exact {
		short = strconv.FormatFloat(f, 'g', -1, 64)
	}
	return []string{exact, short}
}

// safeContext is ctx with the sensitive variables unknown.
func safeContext(ctx *hcl.EvalContext, vals Values) *hcl.EvalContext {
	vars := map[string]cty.Value{}
	for name, v := range ctx.Variables["var"].AsValueMap() {
		vars[name] = v
		if vals[name] != nil {
			vars[name] = cty.DynamicVal
		}
	}
	safe := map[string]cty.Value{}
	for k, v := range ctx.Variables {
		safe[k] = v
	}
	safe["var"] = cty.ObjectVal(vars)
	return &hcl.EvalContext{Variables: safe}
}

// Diagnostics rewrites diags in place and returns them.
func (r *Redactor) Diagnostics(diags hcl.Diagnostics) hcl.Diagnostics {
	if r == nil {
		return diags
	}
	for _, d := range diags {
		d.Summary, d.Detail = r.hide(d, d.Summary), r.hide(d, d.Detail)
		switch d.EvalContext {
		case nil:
		case r.ctx:
			d.EvalContext = r.safe
		default:
			// A for expression's own scope, whose values may be elements
			// of a sensitive one: print none.
			d.EvalContext = nil
		}
	}
	return diags
}

// hide replaces the sensitive values in text, a part of diagnostic d.
func (r *Redactor) hide(d *hcl.Diagnostic, text string) string {
	text = r.text.Replace(text)
	for name, re := range r.near {
		if r.refersTo(d.Subject, name) {
			text = re.ReplaceAllString(text, "the value of var."+name)
		}
	}
	return text
}

// refersTo reports whether the source at subject names var.NAME.
func (r *Redactor) refersTo(subject *hcl.Range, name string) bool {
	if subject == nil || subject.Filename != r.file || subject.End.Byte > len(r.src) || subject.Start.Byte > subject.End.Byte {
		return false
	}
	return strings.Contains(string(r.src[subject.Start.Byte:subject.End.Byte]), "var."+name)
}

// Text hides the sensitive values in text that is not a diagnostic: a
// report's fields, a description of a dataset, an error met while opening
// or reading it. A value is hidden where it is quoted, bare where it is
// at least 4 characters long, and where it is the whole text.
func (r *Redactor) Text(text string) string {
	if r == nil {
		return text
	}
	if name, ok := r.whole[text]; ok {
		return "(the value of var." + name + ")"
	}
	return r.text.Replace(text)
}

// Error is err with its message redacted (Text); errors.Is and
// errors.As see err as it was. nil stays nil.
func (r *Redactor) Error(err error) error {
	if err == nil || r == nil {
		return err
	}
	msg := r.Text(err.Error())
	if msg == err.Error() {
		return err
	}
	return &redactedError{msg: msg, err: err}
}

// redactedError is an error whose message hides sensitive values.
type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }
