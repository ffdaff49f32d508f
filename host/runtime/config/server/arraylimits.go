package server

import (
	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/zarrgw/zarrgw/core/meta"
	"github.com/zarrgw/zarrgw/host/runtime/config/hclread"
)

// maxArrayRank bounds max_array_rank: a .npy header (version 1, which
// every reader takes) must hold the shape of a selection.
const maxArrayRank = 1024

// arrayLimits decodes the server block's bounds on what array metadata
// may ask of a reader (meta.Limits): max_array_rank, max_chunk_bytes,
// max_shard_chunks and max_chunk_edges. They apply wherever the configuration opens arrays,
// the gateway and the CLI; one left out keeps meta's default (a zero
// field).
func (d *Decoder) arrayLimits(attrs hcl.Attributes, l *meta.Limits) hcl.Diagnostics {
	diags := d.sizeAttr(attrs, "max_chunk_bytes", &l.MaxChunkBytes, true)
	if n, ok, more := d.wholeAttr(attrs, "max_array_rank", 1, maxArrayRank); ok {
		l.MaxRank = int(n)
	} else {
		diags = append(diags, more...)
	}
	if n, ok, more := d.wholeAttr(attrs, "max_shard_chunks", 1, 1<<40); ok {
		l.MaxShardChunks = n
	} else {
		diags = append(diags, more...)
	}
	if n, ok, more := d.wholeAttr(attrs, "max_chunk_edges", 1, 1<<32); ok {
		l.MaxChunkEdges = int(n)
	} else {
		diags = append(diags, more...)
	}
	return diags
}

// wholeAttr reads a whole number from lo to hi; ok is false when the
// attribute is absent or wrong (diags say which).
func (d *Decoder) wholeAttr(attrs hcl.Attributes, name string, lo, hi int64) (int64, bool, hcl.Diagnostics) {
	v, ok, diags := d.ev.Attr(attrs, name, cty.Number)
	if !ok {
		return 0, false, diags
	}
	n, acc := v.AsBigFloat().Int64()
	if acc != 0 || n < lo || n > hi {
		return 0, false, append(diags, hclread.ErrorAt(attrs[name].Expr.Range(), "Invalid "+name,
			"%s must be a whole number from %d to %d.", name, lo, hi))
	}
	return n, true, diags
}
