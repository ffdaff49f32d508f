package config

import (
	"path/filepath"
	"sort"

	"github.com/hashicorp/hcl/v2"
	"github.com/zarrgw/zarrgw/host/runtime/config/hclread"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
)

// evalContext puts var.NAME, store.TYPE.NAME and path.config in scope. A
// store reference evaluates to its identity, "store.TYPE.NAME"; path.config
// is the absolute directory of the configuration file, as Terraform's
// path.module, so a file can name places beside itself.
func (d *decoder) evalContext() *hcl.EvalContext {
	vars := map[string]cty.Value{}
	for name := range d.declared {
		// A declared variable whose value failed is unknown, so references
		// to it do not add errors to the one already reported.
		vars[name] = cty.DynamicVal
	}
	for _, v := range d.cfg.Variables {
		vars[v.Name] = v.Value
	}
	byType := map[string]map[string]cty.Value{}
	for ref := range d.stores {
		if byType[ref.Type] == nil {
			byType[ref.Type] = map[string]cty.Value{}
		}
		byType[ref.Type][ref.Name] = cty.StringVal(ref.String())
	}
	stores := map[string]cty.Value{}
	for typ, names := range byType {
		stores[typ] = cty.ObjectVal(names)
	}
	dir, err := filepath.Abs(d.cfg.Dir)
	if err != nil {
		dir = d.cfg.Dir
	}
	providers := map[string]cty.Value{}
	for name := range d.providers {
		providers[name] = cty.StringVal(identityPrefix + "." + name)
	}
	return &hcl.EvalContext{Variables: map[string]cty.Value{
		"var":          cty.ObjectVal(vars),
		"store":        cty.ObjectVal(stores),
		"path":         cty.ObjectVal(map[string]cty.Value{"config": cty.StringVal(dir)}),
		identityPrefix: cty.ObjectVal(providers),
	}}
}

// checkRefs reports references to anything but declared variables and
// stores, naming what is declared: HCL's own message ("object has no
// attribute") would not say that the declaration is missing.
func (d *decoder) checkRefs(traversals []hcl.Traversal) hcl.Diagnostics {
	var diags hcl.Diagnostics
	for _, t := range traversals {
		rng := t.SourceRange()
		switch t.RootName() {
		case "var":
			name, ok := attrStep(t, 1)
			if !ok {
				diags = append(diags, hclread.ErrorAt(rng, "Invalid variable reference", "Refer to a variable as var.NAME."))
				continue
			}
			if !d.declared[name] {
				diags = append(diags, hclread.ErrorAt(rng, "Reference to undeclared variable",
					"No variable %q is declared.%s Declare it with a variable %q block.",
					name, hclread.KnownList("Declared variables", hclread.SortedKeys(d.declared), name), name))
			}
		case "store":
			typ, ok1 := attrStep(t, 1)
			name, ok2 := attrStep(t, 2)
			if !ok1 || !ok2 {
				diags = append(diags, hclread.ErrorAt(rng, "Invalid store reference", "Refer to a store as store.TYPE.NAME."))
				continue
			}
			ref := StoreRef{typ, name}
			if _, ok := d.stores[ref]; !ok {
				var declared []string
				for r := range d.stores {
					declared = append(declared, r.String())
				}
				sort.Strings(declared)
				diags = append(diags, hclread.ErrorAt(rng, "Reference to undeclared store",
					"No store %q %q is declared.%s", typ, name, hclread.KnownList("Declared stores", declared, ref.String())))
			}
		case identityPrefix:
			name, ok := attrStep(t, 1)
			if !ok || len(t) != 2 {
				diags = append(diags, hclread.ErrorAt(rng, "Invalid identity provider reference", "Refer to an identity provider as identity_provider.NAME."))
			} else if d.providers[name] == nil {
				diags = append(diags, hclread.ErrorAt(rng, "Reference to undeclared identity provider",
					"No identity_provider %q is declared.%s", name, hclread.KnownList("Declared", hclread.SortedKeys(d.providers), name)))
			}
		case "path":
			if name, ok := attrStep(t, 1); !ok || name != "config" || len(t) != 2 {
				diags = append(diags, hclread.ErrorAt(rng, "Invalid path reference", "path.config, the configuration file's directory, is the only path value."))
			}
		default:
			diags = append(diags, hclread.ErrorAt(rng, "Unknown reference",
				"%q is not defined here; only var.NAME, store.TYPE.NAME, identity_provider.NAME and path.config may be referred to.", t.RootName()))
		}
	}
	return diags
}

func attrStep(t hcl.Traversal, i int) (string, bool) {
	if len(t) <= i {
		return "", false
	}
	a, ok := t[i].(hcl.TraverseAttr)
	return a.Name, ok
}

// eval evaluates expr and converts the result to ty. A null result stays
// null, for the caller to accept or refuse.
func (d *decoder) eval(expr hcl.Expression, ty cty.Type) (cty.Value, hcl.Diagnostics) {
	diags := d.checkRefs(expr.Variables())
	if diags.HasErrors() {
		return cty.UnknownVal(ty), diags
	}
	v, more := expr.Value(d.ctx)
	diags = append(diags, more...)
	if more.HasErrors() {
		return cty.UnknownVal(ty), diags
	}
	cv, err := convert.Convert(v, ty)
	if err != nil {
		return cty.UnknownVal(ty), append(diags, hclread.ErrorAt(expr.Range(), "Incorrect value type",
			"Expected %s: %s.", ty.FriendlyName(), err))
	}
	return cv, diags
}

// evalAttr evaluates an optional attribute; ok is false when it is absent
// or its value is null or not known because of an earlier error.
func (d *decoder) evalAttr(attrs hcl.Attributes, name string, ty cty.Type) (v cty.Value, ok bool, diags hcl.Diagnostics) {
	a := attrs[name]
	if a == nil {
		return cty.NullVal(ty), false, nil
	}
	v, diags = d.eval(a.Expr, ty)
	return v, v.IsWhollyKnown() && !v.IsNull(), diags
}
