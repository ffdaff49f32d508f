package hclread

import (
	"slices"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hcldec"
	"github.com/zclconf/go-cty/cty"

	"github.com/zarrgw/zarrgw/core/extension"
)

// A manifest's configuration schema (extension.Schema) decides how a block
// body is decoded (the HCL types of its attributes, here) and what values
// it takes (extension's validator, the one plugins use too, in
// schema_check.go's checkValue). Unlike JSON Schema's default, a body may
// not carry attributes beyond the properties unless the schema says
// additionalProperties true: configuration is written by hand, and an
// unknown attribute is far more often a typo than a wish.

// open reports whether attributes beyond the properties are allowed.
func open(s *extension.Schema) bool {
	return s.AdditionalProperties != nil && *s.AdditionalProperties
}

// ctyType is the HCL type a value of s is converted to; HCL's conversion
// then reports type errors with the attribute's source range.
func ctyType(s *extension.Schema) cty.Type {
	switch s.Single() {
	case "string":
		return cty.String
	case "integer", "number":
		return cty.Number
	case "boolean":
		return cty.Bool
	case "array":
		// A list needs one element type; with "any" somewhere inside, the
		// elements may differ (codec lists with different configurations),
		// so the value stays a tuple and the validator walks it.
		if s.Items != nil {
			if et := ctyType(s.Items); !et.HasDynamicTypes() {
				return cty.List(et)
			}
		}
	case "object":
		if len(s.Properties) > 0 {
			attrs := map[string]cty.Type{}
			var optional []string
			for name, p := range s.Properties {
				attrs[name] = ctyType(p)
				if !slices.Contains(s.Required, name) {
					optional = append(optional, name)
				}
			}
			return cty.ObjectWithOptionalAttrs(attrs, optional)
		}
	}
	return cty.DynamicPseudoType
}

// bodySpec is the hcldec specification of a block body holding an object
// of s: one attribute per property, except that a property whose schema
// is an object with properties may be written as a nested block, as HCL
// writers expect (`disk { path = "..." }`), or as an attribute holding an
// object (`disk = { path = "..." }`): body says which it is.
func bodySpec(s *extension.Schema, body hcl.Body) hcldec.ObjectSpec {
	blocks := nestedBlocks(s, body)
	spec := hcldec.ObjectSpec{}
	for name, p := range s.Properties {
		required := slices.Contains(s.Required, name)
		if blocks[name] {
			spec[name] = &hcldec.BlockSpec{TypeName: name, Nested: bodySpec(p, nil), Required: required}
			continue
		}
		spec[name] = &hcldec.AttrSpec{Name: name, Type: ctyType(p), Required: required}
	}
	for _, name := range s.Required {
		if _, ok := spec[name]; !ok {
			spec[name] = &hcldec.AttrSpec{Name: name, Type: cty.DynamicPseudoType, Required: true}
		}
	}
	return spec
}

// nestedBlocks names the object properties of s that body writes as
// blocks. Diagnostics are left to the decoding (two blocks, or a block
// and an attribute of one name, are reported there).
func nestedBlocks(s *extension.Schema, body hcl.Body) map[string]bool {
	if body == nil {
		return nil
	}
	var schema hcl.BodySchema
	for name, p := range s.Properties {
		if p.Single() == "object" && len(p.Properties) > 0 {
			schema.Blocks = append(schema.Blocks, hcl.BlockHeaderSchema{Type: name})
		}
	}
	if len(schema.Blocks) == 0 {
		return nil
	}
	content, _, _ := body.PartialContent(&schema)
	found := map[string]bool{}
	for _, b := range content.Blocks {
		found[b.Type] = true
	}
	return found
}
