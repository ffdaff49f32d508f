// Package schematest checks a store's configuration schema against its
// configuration struct, so that the two cannot drift apart: every JSON
// field of the struct is a property of the schema and the other way
// round, and exactly the secrets are writeOnly.
package schematest

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// Check fails unless schema is a JSON object schema whose properties are
// the JSON names of cfg's fields, with exactly the properties in secrets
// marked writeOnly.
func Check(t *testing.T, schema string, cfg any, secrets ...string) {
	t.Helper()
	var s struct {
		Type       string `json:"type"`
		Required   []string
		Properties map[string]struct {
			WriteOnly bool `json:"writeOnly"`
		} `json:"properties"`
	}
	if err := json.Unmarshal([]byte(schema), &s); err != nil || s.Type != "object" {
		t.Fatalf("schema is not a JSON object schema: %v", err)
	}
	var fields []string
	typ := reflect.TypeOf(cfg)
	for i := range typ.NumField() {
		name, _, _ := strings.Cut(typ.Field(i).Tag.Get("json"), ",")
		fields = append(fields, name)
		p, ok := s.Properties[name]
		if !ok {
			t.Errorf("field %s (%q) is not in the schema", typ.Field(i).Name, name)
		}
		if p.WriteOnly != slices.Contains(secrets, name) {
			t.Errorf("property %q: writeOnly %v, want %v", name, p.WriteOnly, !p.WriteOnly)
		}
	}
	for name := range s.Properties {
		if !slices.Contains(fields, name) {
			t.Errorf("schema property %q has no field", name)
		}
	}
	for _, name := range s.Required {
		if !slices.Contains(fields, name) {
			t.Errorf("required property %q has no field", name)
		}
	}
}
