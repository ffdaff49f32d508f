package access

import (
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/zarrgw/zarrgw/host/runtime/config/hclread"
)

// Access lists the principals allowed to read and write; "*" is anyone.
// Without an access block anyone may read and no one may write.
type Access struct{ Read, Write []string }

var accessSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{{Name: "read"}, {Name: "write"}}}

// Lists decodes an access block into a, whose lists the block leaves
// out keep their value; owner is the dataset (or what stands in for one)
// messages name, and readOnly refuses write access.
func (d *Decoder) Lists(b *hcl.Block, owner string, readOnly bool, a *Access) hcl.Diagnostics {
	content, diags := b.Body.Content(accessSchema)
	attrs := content.Attributes
	for _, name := range []string{"read", "write"} {
		v, ok, more := d.ev.Attr(attrs, name, cty.List(cty.String))
		diags = append(diags, more...)
		if !ok {
			continue
		}
		list := hclread.StringList(v)
		for _, p := range list {
			if strings.TrimSpace(p) == "" {
				diags = append(diags, hclread.ErrorAt(attrs[name].Expr.Range(), "Empty principal",
					"Dataset %q: access.%s lists an empty name; use \"*\" for anyone.", owner, name))
			}
		}
		if name == "read" {
			a.Read = list
		} else {
			a.Write = list
		}
	}
	if readOnly && len(a.Write) > 0 {
		diags = append(diags, hclread.ErrorAt(attrs["write"].Expr.Range(), "Write access to a read-only dataset",
			"Dataset %q is read_only, so access.write can grant nothing; remove one of the two.", owner))
	}
	return diags
}

// KnownPrincipals reports names of an access list that no principal block
// declares (principals are decoded before the server block and the
// datasets' checks). A principal whose block failed counts as declared:
// its own error says what is wrong.
func (d *Decoder) KnownPrincipals(at hcl.Range, what string, names []string) hcl.Diagnostics {
	declared := d.names
	var diags hcl.Diagnostics
	for _, name := range names {
		if name != Anyone && name != "" && !declared[name] {
			diags = append(diags, hclread.ErrorAt(at, "Unknown principal",
				"%s names %q, which no principal block declares.%s", what, name, hclread.KnownList("Declared", hclread.SortedKeys(declared), name)))
		}
	}
	return diags
}
