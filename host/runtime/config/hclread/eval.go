package hclread

import (
	"sort"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
)

// Evaluator evaluates expressions in a scope, refusing references to
// anything the scope does not declare before HCL evaluates them.
type Evaluator struct {
	Scope
	ctx *hcl.EvalContext
}

// NewEvaluator evaluates in scope s.
func NewEvaluator(s Scope) *Evaluator { return &Evaluator{Scope: s, ctx: s.context()} }

// Context is the evaluation context the diagnostics of expressions carry.
func (e *Evaluator) Context() *hcl.EvalContext { return e.ctx }

// Eval evaluates expr and converts the result to ty. A null result stays
// null, for the caller to accept or refuse.
func (e *Evaluator) Eval(expr hcl.Expression, ty cty.Type) (cty.Value, hcl.Diagnostics) {
	diags := e.checkRefs(expr.Variables())
	if diags.HasErrors() {
		return cty.UnknownVal(ty), diags
	}
	v, more := expr.Value(e.ctx)
	diags = append(diags, more...)
	if more.HasErrors() {
		return cty.UnknownVal(ty), diags
	}
	cv, err := convert.Convert(v, ty)
	if err != nil {
		return cty.UnknownVal(ty), append(diags, ErrorAt(expr.Range(), "Incorrect value type",
			"Expected %s: %s.", ty.FriendlyName(), err))
	}
	return cv, diags
}

// Attr evaluates an optional attribute; ok is false when it is absent
// or its value is null or not known because of an earlier error.
func (e *Evaluator) Attr(attrs hcl.Attributes, name string, ty cty.Type) (v cty.Value, ok bool, diags hcl.Diagnostics) {
	a := attrs[name]
	if a == nil {
		return cty.NullVal(ty), false, nil
	}
	v, diags = e.Eval(a.Expr, ty)
	return v, v.IsWhollyKnown() && !v.IsNull(), diags
}

// DecodeFree decodes a body of attributes without a schema.
func (e *Evaluator) DecodeFree(body hcl.Body) (cty.Value, hcl.Diagnostics) {
	attrs, diags := body.JustAttributes()
	names := make([]string, 0, len(attrs))
	for name := range attrs {
		names = append(names, name)
	}
	sort.Strings(names)
	obj := map[string]cty.Value{}
	for _, name := range names {
		v, more := e.Eval(attrs[name].Expr, cty.DynamicPseudoType)
		diags = append(diags, more...)
		obj[name] = v
	}
	return cty.ObjectVal(obj), diags
}
