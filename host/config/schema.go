package config

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/hashicorp/hcl/v2/hcldec"
	"github.com/zclconf/go-cty/cty"
)

// schema is a node of the JSON Schema subset manifests use. Keywords
// outside the subset are ignored; a type the subset cannot express (a list
// of types, none) accepts any value rather than rejecting a plugin's
// configuration that the plugin itself would take.
type schema struct {
	Type       json.RawMessage    `json:"type"`
	Properties map[string]*schema `json:"properties"`
	Required   []string           `json:"required"`
	Items      *schema            `json:"items"`
	Enum       []json.RawMessage  `json:"enum"`
	Minimum    *float64           `json:"minimum"`
	Maximum    *float64           `json:"maximum"`
	// WriteOnly marks a secret, which must come from a variable.
	WriteOnly bool `json:"writeOnly"`
	// AdditionalProperties, when true, lets a body carry attributes beyond
	// the properties. Unlike JSON Schema's default, HCL refuses them
	// otherwise: configuration is written by hand, and an unknown
	// attribute is far more often a typo than a wish.
	AdditionalProperties *bool `json:"additionalProperties"`
}

// parseSchema reads a manifest's configuration schema, which must describe
// an object.
func parseSchema(raw json.RawMessage) (*schema, error) {
	var s schema
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, err
	}
	if t := s.types(); len(t) > 0 && !slices.Contains(t, "object") {
		return nil, fmt.Errorf("type %v is not object", t)
	}
	return &s, nil
}

// open reports whether attributes beyond the properties are allowed.
func (s *schema) open() bool { return s.AdditionalProperties != nil && *s.AdditionalProperties }

// types lists the allowed JSON types; nil allows any.
func (s *schema) types() []string {
	var one string
	if json.Unmarshal(s.Type, &one) == nil {
		return []string{one}
	}
	var many []string
	_ = json.Unmarshal(s.Type, &many) // neither form: any type
	return many
}

// single returns the one allowed type, or "" when there are several or none.
func (s *schema) single() string {
	if t := s.types(); len(t) == 1 {
		return t[0]
	}
	return ""
}

// ctyType is the HCL type a value of s is converted to; HCL's conversion
// then reports type errors with the attribute's source range.
func (s *schema) ctyType() cty.Type {
	switch s.single() {
	case "string":
		return cty.String
	case "integer", "number":
		return cty.Number
	case "boolean":
		return cty.Bool
	case "array":
		// A list needs one element type; with "any" somewhere inside, the
		// elements may differ (codec lists with different configurations),
		// so the value stays a tuple and check walks it.
		if s.Items != nil {
			if et := s.Items.ctyType(); !et.HasDynamicTypes() {
				return cty.List(et)
			}
		}
	case "object":
		if len(s.Properties) > 0 {
			attrs := map[string]cty.Type{}
			var optional []string
			for name, p := range s.Properties {
				attrs[name] = p.ctyType()
				if !slices.Contains(s.Required, name) {
					optional = append(optional, name)
				}
			}
			return cty.ObjectWithOptionalAttrs(attrs, optional)
		}
	}
	return cty.DynamicPseudoType
}

// spec is the hcldec specification of a block body holding an object of s:
// one attribute per property, and no blocks.
func (s *schema) spec() hcldec.ObjectSpec {
	spec := hcldec.ObjectSpec{}
	for name, p := range s.Properties {
		spec[name] = &hcldec.AttrSpec{Name: name, Type: p.ctyType(), Required: slices.Contains(s.Required, name)}
	}
	for _, name := range s.Required {
		if _, ok := spec[name]; !ok {
			spec[name] = &hcldec.AttrSpec{Name: name, Type: cty.DynamicPseudoType, Required: true}
		}
	}
	return spec
}
