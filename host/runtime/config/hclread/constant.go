package hclread

import (
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
)

// Constant evaluates an expression that may refer to nothing.
func Constant(expr hcl.Expression) (cty.Value, hcl.Diagnostics) {
	if vars := expr.Variables(); len(vars) > 0 {
		return cty.NilVal, hcl.Diagnostics{ErrorAt(vars[0].SourceRange(), "Reference not allowed here",
			"Variable blocks are read before anything else, so their attributes must be constants.")}
	}
	return expr.Value(nil)
}

// ConstantOf is Constant converted to ty.
func ConstantOf(expr hcl.Expression, ty cty.Type) (cty.Value, hcl.Diagnostics) {
	val, diags := Constant(expr)
	if diags.HasErrors() {
		return cty.NullVal(ty), diags
	}
	cv, err := convert.Convert(val, ty)
	if err != nil {
		return cty.NullVal(ty), append(diags, ErrorAt(expr.Range(), "Incorrect value type", "Expected %s: %s.", ty.FriendlyName(), err))
	}
	return cv, diags
}

// EnvValue reads an environment variable's text s as the type of def, a
// variable's default: a string without one, a number or bool converted
// from the text, and for lists and objects an HCL expression such as
// ["a", "b"], bounded as files are.
func EnvValue(s string, def cty.Value) (cty.Value, error) {
	if def == cty.NilVal || def.Type() == cty.String {
		return cty.StringVal(s), nil
	}
	if def.Type().IsPrimitiveType() {
		return convert.Convert(cty.StringVal(s), def.Type())
	}
	if diags := checkExpressionNesting([]byte(s), "env"); diags.HasErrors() {
		return cty.NilVal, nestingError(diags)
	}
	expr, diags := hclsyntax.ParseExpression([]byte(s), "env", hcl.InitialPos)
	if diags.HasErrors() {
		return cty.NilVal, diags
	}
	val, diags := Constant(expr)
	if diags.HasErrors() {
		return cty.NilVal, diags
	}
	return val, nil
}
