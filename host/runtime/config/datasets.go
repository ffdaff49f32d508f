package config

import (
	"cmp"
	"fmt"
	"regexp"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/zarrgw/zarrgw/core/extension"
	"github.com/zarrgw/zarrgw/host/runtime/config/hclread"
	"github.com/zarrgw/zarrgw/host/runtime/config/server"
)

var datasetSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "store", Required: true}, {Name: "prefix"}, {Name: "read_only"}, {Name: "consolidated"}},
	Blocks: []hcl.BlockHeaderSchema{
		{Type: "transformer", LabelNames: []string{"name"}},
		{Type: "codec", LabelNames: []string{"name"}},
		{Type: "access"},
	},
}

// datasetName keeps names usable as one URL path segment.
var datasetName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

func (d *decoder) datasets(blocks []*hcl.Block) hcl.Diagnostics {
	var diags hcl.Diagnostics
	first := map[string]hcl.Range{}
	for _, b := range blocks {
		name, at := b.Labels[0], b.LabelRanges[0]
		if !datasetName.MatchString(name) {
			diags = append(diags, hclread.ErrorAt(at, "Invalid dataset name",
				"%q cannot name a dataset: it must start with a letter or digit and hold only letters, digits, dots, dashes and underscores, since it appears in URLs.", name))
			continue
		}
		if r, ok := first[name]; ok {
			diags = append(diags, hclread.Duplicate(fmt.Sprintf("dataset %q", name), at, r))
			continue
		}
		first[name] = at
		ds, more := d.dataset(b)
		diags = append(diags, more...)
		if !more.HasErrors() {
			d.cfg.Datasets = append(d.cfg.Datasets, ds)
		}
	}
	return diags
}

func (d *decoder) dataset(b *hcl.Block) (Dataset, hcl.Diagnostics) {
	ds := Dataset{Name: b.Labels[0], DeclRange: b.DefRange, AccessRange: b.DefRange, Access: Access{Read: []string{Anyone}}}
	content, diags := b.Body.Content(datasetSchema)
	attrs := content.Attributes
	ref, ok, more := d.ev.Attr(attrs, "store", cty.String)
	diags = append(diags, more...)
	if ok {
		r, found := d.ev.StoreRef(ref.AsString())
		if !found {
			diags = append(diags, hclread.ErrorAt(attrs["store"].Expr.Range(), "Not a declared store",
				"Dataset %q: store must refer to a declared store, as store.TYPE.NAME; %q is none.", ds.Name, ref.AsString()))
		}
		ds.Store = r
	}
	prefix, ok, more := d.ev.Attr(attrs, "prefix", cty.String)
	diags = append(diags, more...)
	if ok {
		var err error
		if ds.Prefix, err = server.CleanPrefix(prefix.AsString()); err != nil {
			diags = append(diags, hclread.ErrorAt(attrs["prefix"].Expr.Range(), "Invalid prefix", "Dataset %q: %s.", ds.Name, err))
		}
	}
	if keys := cmp.Or(attrs["prefix"], attrs["store"]); keys != nil {
		d.keysAt[ds.Name] = keys.Expr.Range()
	}
	ro, ok, more := d.ev.Attr(attrs, "read_only", cty.Bool)
	diags = append(diags, more...)
	ds.ReadOnly = ok && ro.True()
	if ds.ReadOnly {
		ds.ReadOnlyRange = attrs["read_only"].Range
	}
	cons, ok, more := d.ev.Attr(attrs, "consolidated", cty.Bool)
	diags = append(diags, more...)
	ds.Consolidated = ok && cons.True()
	var accessBlock *hcl.Block
	for _, blk := range content.Blocks {
		switch blk.Type {
		case "transformer":
			ext, more := d.extension(extension.Transformer, blk.Labels[0], blk.LabelRanges[0], blk)
			diags = append(diags, more...)
			ds.Transformers = append(ds.Transformers, ext)
		case "codec":
			ext, more := d.extension(extension.Codec, blk.Labels[0], blk.LabelRanges[0], blk)
			diags = append(diags, more...)
			ds.Codecs = append(ds.Codecs, ext)
		case "access":
			if accessBlock != nil {
				diags = append(diags, hclread.Duplicate("access block", blk.DefRange, accessBlock.DefRange))
				continue
			}
			accessBlock = blk
			ds.AccessRange = blk.DefRange
			diags = append(diags, d.acc.Lists(blk, ds.Name, ds.ReadOnly, &ds.Access)...)
		}
	}
	return ds, diags
}
