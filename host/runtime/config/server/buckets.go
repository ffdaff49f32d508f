package server

import (
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/host/runtime/config/hclread"
)

// bucketsFrom decodes buckets_from and buckets_prefix. Once both are
// valid, it records where buckets_from is, which turns on the check of
// the datasets against them.
func (d *Decoder) bucketsFrom(attrs hcl.Attributes, l *S3Listener) hcl.Diagnostics {
	v, ok, diags := d.ev.Attr(attrs, "buckets_from", cty.String)
	found := false
	if ok {
		var ref hclread.StoreRef
		ref, found = d.ev.StoreRef(v.AsString())
		if !found {
			diags = append(diags, hclread.ErrorAt(attrs["buckets_from"].Expr.Range(), "Not a declared store",
				"buckets_from must refer to a declared store, as store.TYPE.NAME; %q is none.", v.AsString()))
		}
		l.BucketsFrom = &ref
	}
	more := d.bucketsPrefix(attrs, l)
	if found && !more.HasErrors() {
		at := attrs["buckets_from"].Expr.Range()
		d.bucketsFromAt = &at
	}
	return append(diags, more...)
}

// bucketsPrefix decodes buckets_prefix, a key prefix checked as a
// dataset's is.
func (d *Decoder) bucketsPrefix(attrs hcl.Attributes, l *S3Listener) hcl.Diagnostics {
	v, ok, diags := d.ev.Attr(attrs, "buckets_prefix", cty.String)
	if !ok {
		return diags
	}
	prefix, err := CleanPrefix(v.AsString())
	if err != nil {
		return append(diags, hclread.ErrorAt(attrs["buckets_prefix"].Expr.Range(), "Invalid buckets_prefix", "%s.", err))
	}
	if attrs["buckets_from"] == nil {
		return append(diags, hclread.WarningAt(attrs["buckets_prefix"].Expr.Range(), "buckets_prefix without buckets_from",
			"buckets_prefix places the buckets CreateBucket makes, and without buckets_from it makes none: this setting does nothing."))
	}
	l.BucketsPrefix = prefix
	return diags
}

// CleanPrefix is a key prefix as written (a trailing "/" or not) without
// its trailing "/", once valid.
func CleanPrefix(prefix string) (string, error) {
	prefix = strings.TrimSuffix(prefix, "/")
	if prefix == "" {
		return "", nil
	}
	return prefix, store.ValidatePrefix(prefix + "/")
}

// BucketsFromAt is where the s3 block's buckets_from is, once it and
// buckets_prefix are valid; nil when CreateBucket makes no buckets or
// their settings failed. Datasets of that store must keep clear of the
// buckets (config's check of overlaps).
func (d *Decoder) BucketsFromAt() *hcl.Range { return d.bucketsFromAt }
