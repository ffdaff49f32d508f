package extension

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Schema is a node of the JSON Schema subset of Manifest.ConfigSchema.
// Keywords outside the subset are ignored; a type the subset cannot
// express (none, or a list of types) accepts any value of those types
// rather than refusing a configuration the extension itself would take.
// One validator (Check) serves configuration files and plugins alike.
type Schema struct {
	// Type is a type name or a list of them.
	Type       json.RawMessage    `json:"type"`
	Properties map[string]*Schema `json:"properties"`
	Required   []string           `json:"required"`
	Items      *Schema            `json:"items"`
	Enum       []json.RawMessage  `json:"enum"`
	Minimum    *float64           `json:"minimum"`
	Maximum    *float64           `json:"maximum"`
	// WriteOnly marks a secret, which a configuration file must take from
	// a variable.
	WriteOnly bool `json:"writeOnly"`
	// AdditionalProperties says whether an object may carry properties
	// beyond Properties (see Check for the default).
	AdditionalProperties *bool `json:"additionalProperties"`
}

// ParseSchema reads a configuration schema, which must describe an object.
func ParseSchema(raw json.RawMessage) (*Schema, error) {
	var s Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, err
	}
	if t := s.Types(); len(t) > 0 && !slices.Contains(t, "object") {
		return nil, fmt.Errorf("type %v is not object", t)
	}
	return &s, nil
}

// Types lists the allowed JSON types; nil allows any.
func (s *Schema) Types() []string {
	var one string
	if json.Unmarshal(s.Type, &one) == nil {
		return []string{one}
	}
	var many []string
	_ = json.Unmarshal(s.Type, &many) // neither form: any type
	return many
}

// Single returns the one allowed type, or "" when there are several or none.
func (s *Schema) Single() string {
	if t := s.Types(); len(t) == 1 {
		return t[0]
	}
	return ""
}

// FieldError is one problem with a configuration: Path is a JSON pointer
// to the offending value ("/levels/0"), empty for the document itself.
type FieldError struct {
	Path    string
	Message string
}

func (f FieldError) String() string {
	if f.Path == "" {
		return f.Message
	}
	return f.Path + ": " + f.Message
}

// ValidateConfig checks a JSON configuration against a manifest's schema
// and returns every problem. An empty schema accepts anything; an empty
// configuration is the empty object. Properties beyond a schema's are
// refused only where it says additionalProperties false, as JSON Schema
// has it: metadata written by other implementations may carry more.
func ValidateConfig(schemaDoc, config json.RawMessage) ([]FieldError, error) {
	if len(bytes.TrimSpace(schemaDoc)) == 0 {
		return nil, nil
	}
	var s Schema
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
	return s.Check(v, "", false), nil
}

// Check returns what is wrong with v, a decoded JSON value (numbers as
// json.Number) found at path. With closed set, objects may carry only the
// properties their schema names unless it says additionalProperties true:
// hand-written configuration is held to that, since an unknown attribute
// there is far more often a typo than a wish.
func (s *Schema) Check(v any, path string, closed bool) []FieldError {
	var errs []FieldError
	s.check(v, path, closed, &errs)
	return errs
}

func (s *Schema) check(v any, path string, closed bool, errs *[]FieldError) {
	fail := func(format string, args ...any) {
		*errs = append(*errs, FieldError{Path: path, Message: fmt.Sprintf(format, args...)})
	}
	if allowed := s.Types(); len(allowed) > 0 && !slices.ContainsFunc(allowed, func(t string) bool { return isType(v, t) }) {
		fail("must be %s, not %s", orList(allowed), describe(v))
		return
	}
	if n, ok := v.(json.Number); ok {
		s.checkNumber(n, fail)
	}
	if len(s.Enum) > 0 && !s.inEnum(v) {
		opts := make([]string, len(s.Enum))
		for i, e := range s.Enum {
			opts[i] = string(e)
		}
		fail("must be one of %s", orList(opts))
	}
	switch v := v.(type) {
	case map[string]any:
		s.checkObject(v, path, closed, errs, fail)
	case []any:
		if s.Items != nil {
			for i, item := range v {
				s.Items.check(item, path+"/"+strconv.Itoa(i), closed, errs)
			}
		}
	}
}

func (s *Schema) checkNumber(n json.Number, fail func(string, ...any)) {
	f, err := n.Float64()
	switch {
	case err != nil:
		return
	case s.Single() == "integer" && !isInt(n):
		fail("must be an integer, not %s", n)
	case s.Minimum != nil && f < *s.Minimum:
		fail("must be at least %v, not %s", *s.Minimum, n)
	case s.Maximum != nil && f > *s.Maximum:
		fail("must be at most %v, not %s", *s.Maximum, n)
	}
}

func (s *Schema) checkObject(v map[string]any, path string, closed bool, errs *[]FieldError, fail func(string, ...any)) {
	for _, name := range s.Required {
		if _, ok := v[name]; !ok {
			fail("lacks the required property %q", name)
		}
	}
	refuse := s.AdditionalProperties != nil && !*s.AdditionalProperties ||
		closed && s.AdditionalProperties == nil && len(s.Properties) > 0
	names := make([]string, 0, len(v))
	for name := range v {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		p := path + "/" + pointerEscape(name)
		if sub, ok := s.Properties[name]; ok {
			sub.check(v[name], p, closed, errs)
		} else if refuse {
			*errs = append(*errs, FieldError{Path: p, Message: "is not a known property"})
		}
	}
}

// isInt reports whether n is an integer, however large.
func isInt(n json.Number) bool {
	f, ok := new(big.Float).SetString(string(n))
	return ok && f.IsInt()
}

func isType(v any, t string) bool {
	switch t {
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
	case "number", "integer": // integrality is checked with the bounds
		_, ok := v.(json.Number)
		return ok
	case "null":
		return v == nil
	}
	return true // a type this subset does not know: do not refuse
}

// inEnum compares v with the enum's values as canonical JSON.
func (s *Schema) inEnum(v any) bool {
	got, err := canonical(v)
	if err != nil {
		return false
	}
	for _, e := range s.Enum {
		var want any
		dec := json.NewDecoder(bytes.NewReader(e))
		dec.UseNumber()
		if dec.Decode(&want) != nil {
			continue
		}
		if w, err := canonical(want); err == nil && w == got {
			return true
		}
	}
	return false
}

// canonical renders a value so that equal JSON values compare equal
// (numbers by value: 1 and 1.0 are one number).
func canonical(v any) (string, error) {
	if n, ok := v.(json.Number); ok {
		if f, err := n.Float64(); err == nil {
			return strconv.FormatFloat(f, 'g', -1, 64), nil
		}
	}
	b, err := json.Marshal(v)
	return string(b), err
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

func orList(items []string) string {
	if len(items) <= 1 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " or " + items[len(items)-1]
}

// pointerEscape escapes a property name as a JSON pointer segment.
func pointerEscape(s string) string {
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(s)
}

// PointerPath renders a JSON pointer as a path in dotted form, for
// messages about configuration files: "/codecs/0/name" is
// "codecs[0].name".
func PointerPath(pointer string) string {
	var b strings.Builder
	for _, seg := range strings.Split(strings.TrimPrefix(pointer, "/"), "/") {
		if pointer == "" {
			break
		}
		seg = strings.NewReplacer("~1", "/", "~0", "~").Replace(seg)
		if _, err := strconv.Atoi(seg); err == nil && b.Len() > 0 {
			b.WriteString("[" + seg + "]")
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(seg)
	}
	return b.String()
}
