package config

import (
	"fmt"
	"regexp"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
)

var variableSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
	{Name: "default"}, {Name: "env"}, {Name: "description"}, {Name: "sensitive"},
}}

var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// variables decodes the variable blocks (phase one). Their attributes are
// evaluated without any scope: a variable may not refer to another value.
func (d *decoder) variables(blocks []*hcl.Block) hcl.Diagnostics {
	var diags hcl.Diagnostics
	d.declared = map[string]bool{}
	first := map[string]hcl.Range{}
	for _, b := range blocks {
		name, at := b.Labels[0], b.LabelRanges[0]
		if !hclsyntax.ValidIdentifier(name) {
			diags = append(diags, diagf(at, "Invalid variable name",
				"%q cannot be referred to as var.NAME: use letters, digits, underscores and dashes, starting with a letter.", name))
			continue
		}
		if r, ok := first[name]; ok {
			diags = append(diags, duplicate(fmt.Sprintf("variable %q", name), at, r))
			continue
		}
		first[name] = at
		d.declared[name] = true
		v, ok, more := d.variable(b)
		diags = append(diags, more...)
		if ok {
			d.cfg.Variables = append(d.cfg.Variables, v)
		}
		if ok && v.Sensitive {
			d.noteSensitive(v.Name, v.Value)
		}
	}
	return diags
}

// variable resolves one variable: the environment variable named by env
// when it is set, else the default; with neither it has no value, which is
// an error since nothing else can give it one.
func (d *decoder) variable(b *hcl.Block) (Variable, bool, hcl.Diagnostics) {
	v := Variable{Name: b.Labels[0], DeclRange: b.DefRange}
	content, diags := b.Body.Content(variableSchema)
	attrs := content.Attributes
	def := cty.NilVal
	if a := attrs["default"]; a != nil {
		val, more := constant(a.Expr)
		diags = append(diags, more...)
		if !more.HasErrors() && !val.IsNull() {
			def = val
		}
	}
	var env string
	if a := attrs["env"]; a != nil {
		val, more := constantOf(a.Expr, cty.String)
		diags = append(diags, more...)
		if !more.HasErrors() && !val.IsNull() {
			env = val.AsString()
			if !envName.MatchString(env) {
				diags = append(diags, diagf(a.Expr.Range(), "Invalid environment variable name",
					"%q is not an environment variable name: use letters, digits and underscores.", env))
				env = ""
			}
		}
	}
	if a := attrs["sensitive"]; a != nil {
		val, more := constantOf(a.Expr, cty.Bool)
		diags = append(diags, more...)
		v.Sensitive = !more.HasErrors() && val.True()
	}
	if a := attrs["description"]; a != nil {
		_, more := constantOf(a.Expr, cty.String)
		diags = append(diags, more...)
	}
	if diags.HasErrors() {
		return v, false, diags
	}
	if env != "" {
		d.envNames[v.Name] = env
		if s, ok := d.opts.LookupEnv(env); ok {
			if v.Sensitive {
				d.noteSensitive(v.Name, cty.StringVal(s)) // even when it is not a value
			}
			val, err := fromEnv(s, def)
			if err != nil {
				return v, false, append(diags, diagf(attrs["env"].Expr.Range(), "Invalid value in environment variable",
					"%s does not hold a value like the default of variable %q: %s.", env, v.Name, err))
			}
			v.Value, v.Env = val, env
			return v, true, diags
		}
	}
	if def != cty.NilVal {
		v.Value = def
		return v, true, diags
	}
	detail := fmt.Sprintf("Give variable %q a default, or name an environment variable that holds its value with env = \"NAME\".", v.Name)
	if env != "" {
		detail = fmt.Sprintf("The environment variable %s is not set and variable %q has no default.", env, v.Name)
	}
	return v, false, append(diags, diagf(b.LabelRanges[0], fmt.Sprintf("No value for variable %q", v.Name), "%s", detail))
}

// fromEnv reads an environment value as the type of the default: a string
// without one, a number or bool converted from the text, and for lists and
// objects an HCL expression such as ["a", "b"].
func fromEnv(s string, def cty.Value) (cty.Value, error) {
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
	val, diags := constant(expr)
	if diags.HasErrors() {
		return cty.NilVal, diags
	}
	return val, nil
}

// constant evaluates an expression that may refer to nothing.
func constant(expr hcl.Expression) (cty.Value, hcl.Diagnostics) {
	if vars := expr.Variables(); len(vars) > 0 {
		return cty.NilVal, hcl.Diagnostics{diagf(vars[0].SourceRange(), "Reference not allowed here",
			"Variable blocks are read before anything else, so their attributes must be constants.")}
	}
	return expr.Value(nil)
}

// constantOf is constant converted to ty.
func constantOf(expr hcl.Expression, ty cty.Type) (cty.Value, hcl.Diagnostics) {
	val, diags := constant(expr)
	if diags.HasErrors() {
		return cty.NullVal(ty), diags
	}
	cv, err := convert.Convert(val, ty)
	if err != nil {
		return cty.NullVal(ty), append(diags, diagf(expr.Range(), "Incorrect value type", "Expected %s: %s.", ty.FriendlyName(), err))
	}
	return cv, diags
}
