package hclread

import (
	"fmt"
	"sort"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hcldec"
	"github.com/zclconf/go-cty/cty"

	"github.com/zarrgw/zarrgw/core/extension"
)

// DecodeBody decodes a block body against s and checks what types alone do
// not: integers, enums, bounds and secrets.
func (e *Evaluator) DecodeBody(body hcl.Body, s *extension.Schema) (cty.Value, hcl.Diagnostics) {
	spec := bodySpec(s, body)
	diags := e.checkRefs(hcldec.Variables(body, spec))
	if diags.HasErrors() {
		return cty.NilVal, diags
	}
	var (
		val  cty.Value
		more hcl.Diagnostics
	)
	if open(s) {
		val, more = e.decodeOpen(body, spec)
	} else {
		val, more = hcldec.Decode(body, spec, e.ctx)
	}
	diags = append(diags, more...)
	if more.HasErrors() {
		return cty.NilVal, diags
	}
	names := make([]string, 0, len(spec))
	for name := range spec {
		names = append(names, name)
	}
	sort.Strings(names) // diagnostics in a stable order
	for _, name := range names {
		p := s.Properties[name]
		if p == nil {
			continue
		}
		rng := hcldec.SourceRange(body, spec[name])
		for _, problem := range checkValue(p, val.GetAttr(name), name) {
			diags = append(diags, ErrorAt(rng, fmt.Sprintf("Invalid value for %q", name), "%s.", problem))
		}
		if p.WriteOnly && !val.GetAttr(name).IsNull() && !FromVariable(hcldec.Variables(body, spec[name])) {
			diags = append(diags, ErrorAt(rng, fmt.Sprintf("Secret %q written in the file", name),
				"%q is a secret: set it from a variable (var.NAME, with env = \"...\" in the variable block), so the value stays out of the file.", name))
		}
	}
	return val, diags
}

// decodeOpen decodes the properties by spec and adds the body's other
// attributes as they are.
func (e *Evaluator) decodeOpen(body hcl.Body, spec hcldec.ObjectSpec) (cty.Value, hcl.Diagnostics) {
	val, rest, diags := hcldec.PartialDecode(body, spec, e.ctx)
	if diags.HasErrors() {
		return val, diags
	}
	extra, more := e.DecodeFree(rest)
	diags = append(diags, more...)
	attrs := val.AsValueMap()
	if attrs == nil {
		attrs = map[string]cty.Value{}
	}
	for name, v := range extra.AsValueMap() {
		attrs[name] = v
	}
	return cty.ObjectVal(attrs), diags
}
