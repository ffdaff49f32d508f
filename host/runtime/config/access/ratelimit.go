package access

import (
	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/zarrgw/zarrgw/host/runtime/config/hclread"
)

// RateLimit bounds a principal's traffic (or an anonymous client
// address's): a token bucket of Burst requests refilled at
// RequestsPerSecond, and optionally a byte rate for bodies.
type RateLimit struct {
	RequestsPerSecond float64
	Burst             int
	// BytesPerSecond paces response bodies (what the principal reads);
	// 0 = no bound. Request bodies are not paced: min_upload_rate would
	// refuse an upload paced below it.
	BytesPerSecond int64
	// PerSubject gives each subject (a JWT's "sub", a session's subject)
	// acting as the principal a bucket of its own, instead of one for the
	// principal's whole traffic.
	PerSubject bool
	DeclRange  hcl.Range
}

var rateLimitSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
	{Name: "requests_per_second", Required: true}, {Name: "burst"}, {Name: "bytes_per_second"}, {Name: "per"}}}

// RateLimit decodes a rate_limit block (of a principal, or the server's
// anonymous_rate_limit, whose buckets are per client address: per is not
// accepted there).
func (d *Decoder) RateLimit(b *hcl.Block, owner string, anonymous bool) (*RateLimit, hcl.Diagnostics) {
	l := &RateLimit{DeclRange: b.DefRange}
	content, diags := b.Body.Content(rateLimitSchema)
	attrs := content.Attributes
	if v, ok, more := d.ev.Attr(attrs, "requests_per_second", cty.Number); ok {
		l.RequestsPerSecond, _ = v.AsBigFloat().Float64()
		if l.RequestsPerSecond <= 0 || l.RequestsPerSecond > 1e7 {
			diags = append(diags, hclread.ErrorAt(attrs["requests_per_second"].Expr.Range(), "Invalid requests_per_second",
				"%s: requests_per_second must be a positive number (up to 10000000).", owner))
		}
	} else {
		diags = append(diags, more...)
	}
	l.Burst = int(max(1, l.RequestsPerSecond))
	if v, ok, more := d.ev.Attr(attrs, "burst", cty.Number); ok {
		n, acc := v.AsBigFloat().Int64()
		if acc != 0 || n < 1 || n > 1<<24 {
			diags = append(diags, hclread.ErrorAt(attrs["burst"].Expr.Range(), "Invalid burst",
				"%s: burst must be a whole number of requests from 1 to 16777216.", owner))
		}
		l.Burst = int(n)
	} else {
		diags = append(diags, more...)
	}
	if v, ok, more := d.ev.Attr(attrs, "bytes_per_second", cty.DynamicPseudoType); ok {
		n, err := hclread.Rate(v)
		if err != nil {
			diags = append(diags, hclread.ErrorAt(attrs["bytes_per_second"].Expr.Range(), "Invalid bytes_per_second",
				"%s: bytes_per_second must be a size such as \"100MiB\" (or \"100MiB/s\"; 0 for no bound): %s.", owner, err))
		}
		l.BytesPerSecond = n
	} else {
		diags = append(diags, more...)
	}
	if v, ok, more := d.ev.Attr(attrs, "per", cty.String); ok {
		switch v.AsString() {
		case "principal":
		case "subject":
			l.PerSubject = true
		default:
			diags = append(diags, hclread.ErrorAt(attrs["per"].Expr.Range(), "Invalid per",
				"%s: per is \"principal\" (one bucket for all its traffic, the default) or \"subject\" (one per user or session acting as it).", owner))
		}
		if anonymous {
			diags = append(diags, hclread.ErrorAt(attrs["per"].Expr.Range(), "Unexpected per",
				"%s: anonymous traffic is limited per client address; per does not apply.", owner))
		}
	} else {
		diags = append(diags, more...)
	}
	return l, diags
}

// rateLimitBlocks decodes at most one rate_limit block of type kind.
func (d *Decoder) rateLimitBlocks(blocks hcl.Blocks, kind, owner string, anonymous bool) (*RateLimit, hcl.Diagnostics) {
	var out *RateLimit
	var diags hcl.Diagnostics
	for _, b := range blocks {
		if b.Type != kind {
			continue
		}
		if out != nil {
			diags = append(diags, hclread.Duplicate(kind+" block", b.DefRange, out.DeclRange))
			continue
		}
		l, more := d.RateLimit(b, owner, anonymous)
		diags = append(diags, more...)
		out = l
	}
	return out, diags
}
