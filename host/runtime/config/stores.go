package config

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/zarrgw/zarrgw/core/extension"
	"github.com/zarrgw/zarrgw/host/runtime/config/hclread"
)

// indexStores records every store block before anything is evaluated, so
// that store.TYPE.NAME resolves wherever the store is declared.
func (d *decoder) indexStores(blocks []*hcl.Block) hcl.Diagnostics {
	var diags hcl.Diagnostics
	for _, b := range blocks {
		bad := false
		for i, what := range []string{"store type", "store name"} {
			if !hclsyntax.ValidIdentifier(b.Labels[i]) {
				diags = append(diags, hclread.ErrorAt(b.LabelRanges[i], fmt.Sprintf("Invalid %s", what),
					"%q cannot be referred to as store.TYPE.NAME: use letters, digits, underscores and dashes, starting with a letter.", b.Labels[i]))
				bad = true
			}
		}
		if bad {
			continue
		}
		ref := StoreRef{Type: b.Labels[0], Name: b.Labels[1]}
		if prev, ok := d.stores[ref]; ok {
			diags = append(diags, hclread.Duplicate(fmt.Sprintf("store %q %q", ref.Type, ref.Name), b.LabelRanges[1], prev.LabelRanges[1]))
			continue
		}
		d.stores[ref] = b
	}
	return diags
}

// store decodes one store block indexed by indexStores.
func (d *decoder) store(b *hcl.Block) hcl.Diagnostics {
	ref := StoreRef{Type: b.Labels[0], Name: b.Labels[1]}
	if d.stores[ref] != b {
		return nil // invalid or duplicate: already reported
	}
	ext, diags := d.extension(extension.Store, ref.Type, b.LabelRanges[0], b)
	if !diags.HasErrors() {
		st := Store{Ref: ref, Extension: ext}
		diags = append(diags, d.fsRoot(&st, b)...)
		d.referencesPath(&st)
		d.cfg.Stores = append(d.cfg.Stores, st)
	}
	return diags
}
