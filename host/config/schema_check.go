package config

import (
	"encoding/json"
	"fmt"
	"math/big"
	"slices"
	"sort"
	"strings"

	"github.com/zclconf/go-cty/cty"
)

// check returns what is wrong with v, a value already converted to
// s.ctyType(); path names it in messages.
func (s *schema) check(v cty.Value, path string) []string {
	if v.IsNull() || !v.IsWhollyKnown() {
		return nil
	}
	ty := v.Type()
	if allowed := s.types(); len(allowed) > 0 && !slices.ContainsFunc(allowed, func(t string) bool { return isJSONType(v, t) }) {
		return []string{fmt.Sprintf("%s must be %s, not %s", path, orList(allowed), ty.FriendlyName())}
	}
	var problems []string
	if ty == cty.Number {
		n := v.AsBigFloat()
		switch {
		case s.single() == "integer" && !n.IsInt():
			problems = append(problems, fmt.Sprintf("%s must be an integer, not %s", path, n.Text('g', -1)))
		case s.Minimum != nil && n.Cmp(big.NewFloat(*s.Minimum)) < 0:
			problems = append(problems, fmt.Sprintf("%s must be at least %v, not %s", path, *s.Minimum, n.Text('g', -1)))
		case s.Maximum != nil && n.Cmp(big.NewFloat(*s.Maximum)) > 0:
			problems = append(problems, fmt.Sprintf("%s must be at most %v, not %s", path, *s.Maximum, n.Text('g', -1)))
		}
	}
	if len(s.Enum) > 0 && !s.inEnum(v) {
		var opts []string
		for _, e := range s.Enum {
			opts = append(opts, string(e))
		}
		problems = append(problems, fmt.Sprintf("%s must be one of %s", path, orList(opts)))
	}
	switch {
	case (ty.IsListType() || ty.IsTupleType() || ty.IsSetType()) && s.Items != nil:
		i := 0
		for it := v.ElementIterator(); it.Next(); i++ {
			_, e := it.Element()
			problems = append(problems, s.Items.check(e, fmt.Sprintf("%s[%d]", path, i))...)
		}
	case (ty.IsObjectType() || ty.IsMapType()) && s.single() == "object" && (len(s.Properties) > 0 || len(s.Required) > 0):
		// Only values that bypassed conversion (inside a tuple) can lack a
		// required property or carry an unknown one.
		attrs := v.AsValueMap()
		var nested []string
		for name, e := range attrs {
			p, ok := s.Properties[name]
			if !ok {
				if len(s.Properties) > 0 && !s.open() {
					nested = append(nested, fmt.Sprintf("%s has no property %q", path, name))
				}
				continue
			}
			nested = append(nested, p.check(e, path+"."+name)...)
		}
		for _, name := range s.Required {
			if e, ok := attrs[name]; !ok || e.IsNull() {
				nested = append(nested, fmt.Sprintf("%s needs %q", path, name))
			}
		}
		sort.Strings(nested)
		problems = append(problems, nested...)
	}
	return problems
}

func isJSONType(v cty.Value, t string) bool {
	ty := v.Type()
	switch t {
	case "string":
		return ty == cty.String
	case "number":
		return ty == cty.Number
	case "integer":
		return ty == cty.Number // integrality is checked with the bounds
	case "boolean":
		return ty == cty.Bool
	case "array":
		return ty.IsListType() || ty.IsTupleType() || ty.IsSetType()
	case "object":
		return ty.IsObjectType() || ty.IsMapType()
	case "null":
		return v.IsNull()
	}
	return true // a type this subset does not know: do not refuse
}

// inEnum compares v with the enum's values as canonical JSON.
func (s *schema) inEnum(v cty.Value) bool {
	got, err := canonicalJSON(mustJSON(v))
	if err != nil {
		return false
	}
	for _, e := range s.Enum {
		if want, err := canonicalJSON(e); err == nil && want == got {
			return true
		}
	}
	return false
}

func canonicalJSON(raw []byte) (string, error) {
	var x any
	if err := json.Unmarshal(raw, &x); err != nil {
		return "", err
	}
	b, err := json.Marshal(x)
	return string(b), err
}

func orList(items []string) string {
	switch len(items) {
	case 0:
		return ""
	case 1:
		return items[0]
	}
	return fmt.Sprintf("%s or %s", strings.Join(items[:len(items)-1], ", "), items[len(items)-1])
}
