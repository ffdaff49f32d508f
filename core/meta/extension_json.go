package meta

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// parseExtension reads one v3 extension point entry: the short-hand form
// (a bare name) or the object form {"name", "configuration",
// "must_understand"}. Names are kept as written (legacy "endian" too).
func parseExtension(raw json.RawMessage) (Extension, error) {
	t := bytes.TrimSpace(raw)
	if len(t) > 0 && t[0] == '"' {
		name, err := parseString(t)
		if err != nil {
			return Extension{}, err
		}
		if name == "" {
			return Extension{}, errors.New("empty name")
		}
		return Extension{Name: name, MustUnderstand: true}, nil
	}
	f, err := decodeObject(t)
	if err != nil {
		return Extension{}, fmt.Errorf("expected a name or an object: %w", err)
	}
	return extensionFromFields(f, "name")
}

// extensionFromFields reads the name (under nameKey), configuration and
// must_understand of an extension object; other keys are errors because a
// rewrite would lose them.
func extensionFromFields(f fields, nameKey string) (Extension, error) {
	rawName, ok := f.take(nameKey)
	if !ok {
		return Extension{}, fmt.Errorf("missing %q", nameKey)
	}
	name, err := parseString(rawName)
	if err != nil || name == "" {
		return Extension{}, fmt.Errorf("%s: expected a non-empty string, got %s", nameKey, abbreviate(rawName))
	}
	e := Extension{Name: name, MustUnderstand: true}
	if raw, ok := f.takeNonNull("configuration"); ok {
		if e.Configuration, err = parseObject(raw); err != nil {
			return Extension{}, fmt.Errorf("%s: configuration: %w", name, err)
		}
	}
	if raw, ok := f.take("must_understand"); ok {
		if err := json.Unmarshal(raw, &e.MustUnderstand); err != nil {
			return Extension{}, fmt.Errorf("%s: must_understand: expected true or false", name)
		}
		e.mustUnderstandWritten = true
	}
	if len(f) > 0 {
		return Extension{}, fmt.Errorf("%s: unknown field %q", name, f.sortedKeys()[0])
	}
	return e, nil
}

// parseExtensionList reads a list of extension entries; null and [] give nil.
func parseExtensionList(raw json.RawMessage) ([]Extension, error) {
	if isNull(raw) {
		return nil, nil
	}
	elems, err := parseArray(raw)
	if err != nil {
		return nil, err
	}
	var out []Extension
	for i, e := range elems {
		ext, err := parseExtension(e)
		if err != nil {
			return nil, fmt.Errorf("entry %d: %w", i, err)
		}
		out = append(out, ext)
	}
	return out, nil
}

// marshalExtension writes the 3.0 object form: "name", "configuration"
// when set, and "must_understand" only when the source document had it.
func marshalExtension(e Extension) ([]byte, error) {
	if e.Name == "" {
		return nil, errors.New("extension without a name")
	}
	o := newObject()
	o.add("name", quote(e.Name))
	if e.Configuration != nil {
		cfg, err := parseObject(e.Configuration)
		if err != nil {
			return nil, fmt.Errorf("%s: configuration: %w", e.Name, err)
		}
		o.add("configuration", cfg)
	}
	if e.mustUnderstandWritten {
		o.add("must_understand", []byte(fmt.Sprint(e.MustUnderstand)))
	}
	return o.bytes(), nil
}

func marshalExtensionList(list []Extension) ([]byte, error) {
	b := []byte{'['}
	for i, e := range list {
		eb, err := marshalExtension(e)
		if err != nil {
			return nil, fmt.Errorf("entry %d: %w", i, err)
		}
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, eb...)
	}
	return append(b, ']'), nil
}

// ParseExtensions reads a JSON list of extension entries as zarr.json
// writes them (names alone or objects with name and configuration), such
// as a codec chain given on a command line.
func ParseExtensions(raw json.RawMessage) ([]Extension, error) {
	return parseExtensionList(raw)
}

// MarshalExtensions writes a list of extension entries as zarr.json does
// (such as the codecs of a sharding_indexed configuration).
func MarshalExtensions(list []Extension) (json.RawMessage, error) {
	return marshalExtensionList(list)
}
