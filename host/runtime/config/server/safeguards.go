package server

import (
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/zarrgw/zarrgw/host/runtime/config/access"
	"github.com/zarrgw/zarrgw/host/runtime/config/hclread"
)

// Safeguards are the server block's bounds on what clients can make the
// gateway spend, and who may read its metrics. Server embeds them (they
// are declared here to keep the server block's decoding in one place).
type Safeguards struct {
	// ExpensiveRequests bounds the array reads (pictures and slices) in
	// progress at once; 0 = no bound.
	ExpensiveRequests int
	// ExpensiveMemory bounds the bytes those reads hold together, as
	// estimated before anything is read; 0 = no bound.
	ExpensiveMemory int64
	// ExpensiveWait is how long an array read waits for room under those
	// bounds before it is refused with 503 (0 = refused at once).
	ExpensiveWait time.Duration
	// BodyReadTimeout is the longest a request body may go without a byte
	// arriving; 0 = no limit.
	BodyReadTimeout time.Duration
	// MinUploadRate is the slowest, in bytes per second, a request body
	// may arrive; 0 = no limit.
	MinUploadRate int64
	// BodyMemory bounds the bytes of request bodies held in memory at
	// once (bodies a store cannot take as a stream, the first MiB of
	// those it can); a request that finds no room within ExpensiveWait
	// is refused with 503. 0 = no bound.
	BodyMemory int64
	// Metrics lists the principals who may read /metrics; nil (no metrics
	// block) means loopback clients only.
	Metrics *access.Access
}

// Bounds of the safeguards' attributes.
const (
	// minExpensiveMemory keeps a memory budget large enough for one
	// streamed slice and a modest picture.
	minExpensiveMemory = 16 << 20
	// maxExpensiveWait keeps refused clients from hanging on: beyond a
	// minute, a retry is the better answer.
	maxExpensiveWait = time.Minute
	maxExpensive     = 1 << 16
	// minBodyMemory leaves room for a few uploads streamed at once, each
	// of which holds its first MiB.
	minBodyMemory = 16 << 20
)

// DefaultSafeguards keeps a small machine (2 cores, 4 GB) alive under a
// flood of expensive requests: four at a time, holding 512 MiB together,
// the rest refused after two seconds.
func DefaultSafeguards() Safeguards {
	return Safeguards{
		ExpensiveRequests: 4,
		ExpensiveMemory:   512 << 20,
		ExpensiveWait:     2 * time.Second,
		BodyReadTimeout:   60 * time.Second,
		MinUploadRate:     16 << 10,
		BodyMemory:        512 << 20,
	}
}

// safeguards decodes the safeguards' attributes of a server block.
func (d *Decoder) safeguards(attrs hcl.Attributes, s *Safeguards) hcl.Diagnostics {
	diags := d.expensiveRequests(attrs, s)
	diags = append(diags, d.expensiveMemory(attrs, s)...)
	diags = append(diags, d.expensiveWait(attrs, s)...)
	diags = append(diags, d.uploadRate(attrs, s)...)
	diags = append(diags, d.bodyMemory(attrs, s)...)
	return diags
}

func (d *Decoder) expensiveRequests(attrs hcl.Attributes, s *Safeguards) hcl.Diagnostics {
	v, ok, diags := d.ev.Attr(attrs, "expensive_requests", cty.Number)
	if !ok {
		return diags
	}
	n, acc := v.AsBigFloat().Int64()
	if acc != 0 || n < 0 || n > maxExpensive {
		return append(diags, hclread.ErrorAt(attrs["expensive_requests"].Expr.Range(), "Invalid expensive_requests",
			"expensive_requests must be a whole number from 0 (no bound) to %d.", maxExpensive))
	}
	s.ExpensiveRequests = int(n)
	return diags
}

func (d *Decoder) expensiveMemory(attrs hcl.Attributes, s *Safeguards) hcl.Diagnostics {
	return d.memoryBound(attrs, "expensive_memory", &s.ExpensiveMemory, minExpensiveMemory, "one streamed slice needs that much")
}

func (d *Decoder) bodyMemory(attrs hcl.Attributes, s *Safeguards) hcl.Diagnostics {
	return d.memoryBound(attrs, "body_memory", &s.BodyMemory, minBodyMemory, "every upload holds up to 1MiB of its body")
}

// memoryBound decodes a budget of memory: 0 (no bound) or at least
// least bytes, for the reason why.
func (d *Decoder) memoryBound(attrs hcl.Attributes, name string, dst *int64, least int64, why string) hcl.Diagnostics {
	diags := d.sizeAttr(attrs, name, dst, false)
	if !diags.HasErrors() && *dst != 0 && *dst < least {
		diags = append(diags, hclread.ErrorAt(attrs[name].Expr.Range(), "Invalid "+name,
			"%s must be 0 (no bound) or at least %dMiB, not %d bytes: %s.", name, least>>20, *dst, why))
	}
	return diags
}

func (d *Decoder) expensiveWait(attrs hcl.Attributes, s *Safeguards) hcl.Diagnostics {
	v, ok, diags := d.ev.Attr(attrs, "expensive_wait", cty.String)
	if !ok {
		return diags
	}
	wait, err := time.ParseDuration(v.AsString())
	if err != nil || wait < 0 || wait > maxExpensiveWait {
		return append(diags, hclread.ErrorAt(attrs["expensive_wait"].Expr.Range(), "Invalid expensive_wait",
			"expensive_wait must be a duration from \"0s\" (refuse at once) to \"1m\", not %q.", v.AsString()))
	}
	s.ExpensiveWait = wait
	return diags
}

// uploadRate decodes min_upload_rate: a size per second, such as
// "16KiB" or "16KiB/s"; "0" turns it off.
func (d *Decoder) uploadRate(attrs hcl.Attributes, s *Safeguards) hcl.Diagnostics {
	const name = "min_upload_rate"
	v, ok, diags := d.ev.Attr(attrs, name, cty.DynamicPseudoType)
	if !ok {
		return diags
	}
	n, err := hclread.Rate(v)
	if err != nil {
		return append(diags, hclread.ErrorAt(attrs[name].Expr.Range(), "Invalid "+name,
			"%s must be a number of bytes per second or a size such as \"16KiB\" (or \"16KiB/s\"; 0 turns it off): %s.", name, err))
	}
	s.MinUploadRate = n
	return diags
}

// metrics decodes the server block's metrics block: an access list whose
// read names the principals (or "*") who may read /metrics.
func (d *Decoder) metrics(b *hcl.Block, s *Safeguards) hcl.Diagnostics {
	var a access.Access
	diags := d.access.Lists(b, "(metrics)", false, &a)
	if len(a.Write) > 0 {
		diags = append(diags, hclread.ErrorAt(b.DefRange, "Write access to metrics",
			"The metrics block takes only read: metrics cannot be written."))
	}
	read := append([]string{}, a.Read...) // [] (nobody) differs from nil (loopback only)
	s.Metrics = &access.Access{Read: read}
	return append(diags, d.access.KnownPrincipals(b.DefRange, "metrics: read", read)...)
}
