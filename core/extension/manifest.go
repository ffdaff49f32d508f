// Package extension describes extensions (codecs, stores, storage
// transformers) to registries, configuration and plugin hosts: what kind
// each is, the names and spec URIs it answers to, its version and the
// schema of its configuration.
package extension

import (
	"bytes"
	"encoding/json"
)

// Kind is what an extension extends.
type Kind string

const (
	Codec       Kind = "codec"
	Store       Kind = "store"
	Transformer Kind = "transformer"
)

// Manifest is what an extension declares about itself.
type Manifest struct {
	Kind Kind `json:"kind"`
	// Name is the registered Zarr name (codecs, transformers) or store type.
	Name string `json:"name"`
	// Aliases are other names it answers to (numcodecs ids, legacy names).
	Aliases []string `json:"aliases,omitempty"`
	// URIs are spec URIs identifying it in metadata or configuration.
	URIs    []string `json:"uris,omitempty"`
	Version string   `json:"version,omitempty"`
	// ConfigSchema is a JSON Schema (the subset: type object, properties
	// with type string/integer/number/boolean/array(items)/object, required,
	// description, default, enum, minimum, maximum) of the configuration.
	ConfigSchema json.RawMessage `json:"config_schema,omitempty"`
}

// Names returns the name, the aliases and the URIs.
func (m Manifest) Names() []string {
	out := append([]string{m.Name}, m.Aliases...)
	return append(out, m.URIs...)
}

// AnswersTo reports whether name is m's name, an alias or a URI.
func (m Manifest) AnswersTo(name string) bool {
	for _, n := range m.Names() {
		if n == name {
			return true
		}
	}
	return false
}

// Find returns the manifest of ms of kind that answers to name.
func Find(ms []Manifest, kind Kind, name string) (Manifest, bool) {
	for _, m := range ms {
		if m.Kind == kind && m.AnswersTo(name) {
			return m, true
		}
	}
	return Manifest{}, false
}

// CodecKind says what a codec turns into what, in the encode direction.
// A codec's kind is the interface it implements (core/codec.KindOf); it
// is named here so that metadata (v2 filters) and manifests can speak of it.
type CodecKind uint8

const (
	ArrayToArray CodecKind = iota + 1
	ArrayToBytes
	BytesToBytes
)

func (k CodecKind) String() string {
	switch k {
	case ArrayToArray:
		return "array->array"
	case ArrayToBytes:
		return "array->bytes"
	case BytesToBytes:
		return "bytes->bytes"
	}
	return "invalid"
}

// DecodeConfig decodes an extension's configuration into v, refusing
// fields v does not have (a misspelt option must not be ignored). An empty
// configuration is the empty object.
func DecodeConfig(data json.RawMessage, v any) error {
	if len(bytes.TrimSpace(data)) == 0 {
		data = json.RawMessage("{}")
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}
