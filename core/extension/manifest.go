// Package extension describes extensions (codecs, stores, storage
// transformers) to registries, configuration and plugin hosts: what kind
// each is, the names and spec URIs it answers to, its version and the
// schema of its configuration.
package extension

import "encoding/json"

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
