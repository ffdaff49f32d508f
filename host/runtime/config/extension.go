package config

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/zarrgw/zarrgw/core/extension"
	"github.com/zarrgw/zarrgw/host/runtime/config/hclread"
)

// noun names a kind in messages.
var noun = map[extension.Kind]string{
	extension.Store:       "store type",
	extension.Transformer: "storage transformer",
	extension.Codec:       "codec",
}

// extension resolves the extension a block names (at is the label's range)
// and decodes the block's body as its configuration.
func (d *decoder) extension(kind extension.Kind, name string, at hcl.Range, b *hcl.Block) (Extension, hcl.Diagnostics) {
	res, ok := d.resolve(kind, name)
	if !ok {
		return Extension{}, hcl.Diagnostics{hclread.ErrorAt(at, fmt.Sprintf("Unknown %s %q", noun[kind], name),
			"No %s is called %q.%s A %s that zarrgw does not bundle comes from a plugin: declare it in a plugin block and run \"%s\", which starts it and records the names it serves.",
			noun[kind], name, hclread.KnownList("Known "+noun[kind]+"s", d.knownNames(kind), name), noun[kind], d.lockCommand())}
	}
	ext := Extension{Kind: kind, Name: name, Manifest: res.manifest, Plugin: res.plugin, Checked: res.checked, DeclRange: b.DefRange}
	var (
		val   cty.Value
		diags hcl.Diagnostics
	)
	switch {
	case res.pending:
		val, diags = d.ev.DecodeFree(b.Body)
	case !res.checked:
		val, diags = d.ev.DecodeFree(b.Body)
		diags = append(diags, hclread.WarningAt(at, fmt.Sprintf("Configuration of %s %q not checked", noun[kind], name),
			"%s %q is taken to come from plugin %q, whose manifest is known only once the plugin runs: its configuration is passed on without checking it against a schema.",
			noun[kind], name, res.plugin))
	case len(res.manifest.ConfigSchema) == 0:
		// The extension declares no schema: it checks its own configuration.
		val, diags = d.ev.DecodeFree(b.Body)
	default:
		s, err := extension.ParseSchema(res.manifest.ConfigSchema)
		if err != nil {
			return ext, hcl.Diagnostics{hclread.ErrorAt(at, "Unusable configuration schema",
				"The manifest of %s %q has a configuration schema that cannot be read: %s.", noun[kind], res.manifest.Name, err)}
		}
		val, diags = d.ev.DecodeBody(b.Body, s)
	}
	if diags.HasErrors() {
		return ext, diags
	}
	cfg, err := hclread.ToJSON(val)
	if err != nil {
		return ext, append(diags, hclread.ErrorAt(b.DefRange, "Configuration cannot be written as JSON", "%s.", err))
	}
	ext.Config = cfg
	return ext, diags
}
