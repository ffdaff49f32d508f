package registry

import (
	"encoding/json"
	"strings"

	"github.com/zarrgw/zarrgw/core/extension"
	"github.com/zarrgw/zarrgw/plugins/codecs/builtin"
	"github.com/zarrgw/zarrgw/plugins/stores/fs"
)

// Manifests returns the manifest of every bundled extension: each bundled
// codec, the store types and the storage transformers, with the schema of
// their configuration.
func Manifests() []extension.Manifest {
	var out []extension.Manifest
	for _, reg := range builtin.Registrations() {
		m := extension.Manifest{Kind: extension.Codec, Name: reg.Name, ConfigSchema: schema(codecSchemas[reg.Name])}
		for _, a := range reg.Aliases {
			// Spec URIs are kept apart so messages can list short names.
			if strings.Contains(a, "://") {
				m.URIs = append(m.URIs, a)
			} else {
				m.Aliases = append(m.Aliases, a)
			}
		}
		out = append(out, m)
	}
	out = append(out,
		extension.Manifest{Kind: extension.Store, Name: fs.Name, ConfigSchema: schema(fsSchema)},
		extension.Manifest{Kind: extension.Store, Name: "s3", ConfigSchema: schema(s3Schema)},
		extension.Manifest{
			Kind:         extension.Transformer,
			Name:         "sharding",
			URIs:         []string{"https://purl.org/zarr/spec/extensions/storage-transformers/sharding/1.0"},
			ConfigSchema: schema(shardingSchema),
		},
	)
	return out
}

// Bundled returns a catalog of the bundled extensions, to which the
// manifests reported by launched plugins can be added.
func Bundled() *Catalog { return NewCatalog(Manifests()...) }

// schema turns a schema literal into the manifest's form; a codec missing
// from codecSchemas gets none, which tests catch.
func schema(s string) json.RawMessage {
	if s == "" {
		return nil
	}
	return json.RawMessage(s)
}
