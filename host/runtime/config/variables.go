package config

import (
	"fmt"
	"regexp"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"

	"github.com/zarrgw/zarrgw/host/runtime/config/hclread"
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
			diags = append(diags, hclread.ErrorAt(at, "Invalid variable name",
				"%q cannot be referred to as var.NAME: use letters, digits, underscores and dashes, starting with a letter.", name))
			continue
		}
		if r, ok := first[name]; ok {
			diags = append(diags, hclread.Duplicate(fmt.Sprintf("variable %q", name), at, r))
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
			d.sensitive.Note(v.Name, v.Value)
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
		val, more := hclread.Constant(a.Expr)
		diags = append(diags, more...)
		if !more.HasErrors() && !val.IsNull() {
			def = val
		}
	}
	var env string
	if a := attrs["env"]; a != nil {
		val, more := hclread.ConstantOf(a.Expr, cty.String)
		diags = append(diags, more...)
		if !more.HasErrors() && !val.IsNull() {
			env = val.AsString()
			if !envName.MatchString(env) {
				diags = append(diags, hclread.ErrorAt(a.Expr.Range(), "Invalid environment variable name",
					"%q is not an environment variable name: use letters, digits and underscores.", env))
				env = ""
			}
		}
	}
	if a := attrs["sensitive"]; a != nil {
		val, more := hclread.ConstantOf(a.Expr, cty.Bool)
		diags = append(diags, more...)
		v.Sensitive = !more.HasErrors() && val.True()
	}
	if a := attrs["description"]; a != nil {
		_, more := hclread.ConstantOf(a.Expr, cty.String)
		diags = append(diags, more...)
	}
	if diags.HasErrors() {
		return v, false, diags
	}
	if env != "" {
		d.envNames[v.Name] = env
		if s, ok := d.opts.LookupEnv(env); ok {
			if v.Sensitive {
				d.sensitive.Note(v.Name, cty.StringVal(s)) // even when it is not a value
			}
			val, err := hclread.EnvValue(s, def)
			if err != nil {
				return v, false, append(diags, hclread.ErrorAt(attrs["env"].Expr.Range(), "Invalid value in environment variable",
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
	return v, false, append(diags, hclread.ErrorAt(b.LabelRanges[0], fmt.Sprintf("No value for variable %q", v.Name), "%s", detail))
}
