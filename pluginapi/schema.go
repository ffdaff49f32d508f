package pluginapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// schema is the JSON Schema subset of extension.Manifest.ConfigSchema.
type schema struct {
	Type                 string             `json:"type"`
	Properties           map[string]*schema `json:"properties"`
	Required             []string           `json:"required"`
	Items                *schema            `json:"items"`
	Enum                 []json.RawMessage  `json:"enum"`
	Minimum              *float64           `json:"minimum"`
	Maximum              *float64           `json:"maximum"`
	AdditionalProperties *bool              `json:"additionalProperties"`
}

// ValidateConfig checks a configuration against a manifest's schema and
// returns every problem with the path of the offending field. An empty
// schema accepts anything; an empty configuration is the empty object.
func ValidateConfig(schemaDoc, config json.RawMessage) ([]FieldError, error) {
	if len(bytes.TrimSpace(schemaDoc)) == 0 {
		return nil, nil
	}
	var s schema
	if err := json.Unmarshal(schemaDoc, &s); err != nil {
		return nil, fmt.Errorf("configuration schema: %w", err)
	}
	if len(bytes.TrimSpace(config)) == 0 {
		config = json.RawMessage("{}")
	}
	dec := json.NewDecoder(bytes.NewReader(config))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return []FieldError{{Message: "not valid JSON: " + err.Error()}}, nil
	}
	var errs []FieldError
	s.check(v, "", &errs)
	return errs, nil
}

func (s *schema) check(v any, path string, errs *[]FieldError) {
	fail := func(format string, args ...any) {
		*errs = append(*errs, FieldError{Path: path, Message: fmt.Sprintf(format, args...)})
	}
	if !s.typeMatches(v) {
		fail("must be %s, not %s", article(s.Type), describe(v))
		return
	}
	if len(s.Enum) > 0 && !s.inEnum(v) {
		fail("must be one of %s", enumList(s.Enum))
	}
	if n, ok := v.(json.Number); ok {
		s.checkRange(n, fail)
	}
	switch v := v.(type) {
	case map[string]any:
		s.checkObject(v, path, errs, fail)
	case []any:
		if s.Items != nil {
			for i, item := range v {
				s.Items.check(item, path+"/"+strconv.Itoa(i), errs)
			}
		}
	}
}

func (s *schema) checkObject(v map[string]any, path string, errs *[]FieldError, fail func(string, ...any)) {
	for _, name := range s.Required {
		if _, ok := v[name]; !ok {
			fail("missing required field %q", name)
		}
	}
	names := make([]string, 0, len(v))
	for name := range v {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		p := path + "/" + pointerEscape(name)
		if sub, ok := s.Properties[name]; ok {
			sub.check(v[name], p, errs)
		} else if s.AdditionalProperties != nil && !*s.AdditionalProperties {
			*errs = append(*errs, FieldError{Path: p, Message: "unknown field"})
		}
	}
}

func (s *schema) checkRange(n json.Number, fail func(string, ...any)) {
	f, err := n.Float64()
	if err != nil {
		return
	}
	if s.Minimum != nil && f < *s.Minimum {
		fail("must be at least %v", *s.Minimum)
	}
	if s.Maximum != nil && f > *s.Maximum {
		fail("must be at most %v", *s.Maximum)
	}
}

func (s *schema) typeMatches(v any) bool {
	switch s.Type {
	case "":
		return true
	case "object":
		_, ok := v.(map[string]any)
		return ok
	case "array":
		_, ok := v.([]any)
		return ok
	case "string":
		_, ok := v.(string)
		return ok
	case "boolean":
		_, ok := v.(bool)
		return ok
	case "number":
		_, ok := v.(json.Number)
		return ok
	case "integer":
		n, ok := v.(json.Number)
		if !ok {
			return false
		}
		f, err := n.Float64()
		return err == nil && f == float64(int64(f))
	}
	return false
}

func (s *schema) inEnum(v any) bool {
	got, _ := json.Marshal(v)
	for _, e := range s.Enum {
		var want any
		dec := json.NewDecoder(bytes.NewReader(e))
		dec.UseNumber()
		if dec.Decode(&want) == nil {
			if w, _ := json.Marshal(want); bytes.Equal(w, got) {
				return true
			}
		}
	}
	return false
}

func enumList(enum []json.RawMessage) string {
	parts := make([]string, len(enum))
	for i, e := range enum {
		parts[i] = string(e)
	}
	return strings.Join(parts, ", ")
}

func describe(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case json.Number:
		return "a number"
	}
	return fmt.Sprintf("%T", v)
}

func article(t string) string {
	switch t {
	case "object", "array", "integer":
		return "an " + t
	}
	return "a " + t
}

// pointerEscape escapes a property name as a JSON pointer segment.
func pointerEscape(s string) string {
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(s)
}
