package config

import (
	"fmt"
	"path"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/zarrgw/zarrgw/host/runtime/config/hclread"
	"github.com/zclconf/go-cty/cty"
)

// CreateBucket makes buckets as key prefixes of the buckets_from store,
// below buckets_prefix, readable and writable by bucket_access. A dataset
// whose keys lie there too would be reachable through a bucket, around
// its own access block: validation refuses such a dataset, and the
// gateway asks BucketOverlaps before making a bucket.

// bucketsFrom decodes buckets_from and buckets_prefix. Once both are
// valid, it records where buckets_from is, which turns on the check of
// the datasets against them.
func (d *decoder) bucketsFrom(attrs hcl.Attributes, l *S3Listener) hcl.Diagnostics {
	v, ok, diags := d.evalAttr(attrs, "buckets_from", cty.String)
	found := false
	if ok {
		var ref StoreRef
		ref, found = d.storeRef(v.AsString())
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
func (d *decoder) bucketsPrefix(attrs hcl.Attributes, l *S3Listener) hcl.Diagnostics {
	v, ok, diags := d.evalAttr(attrs, "buckets_prefix", cty.String)
	if !ok {
		return diags
	}
	prefix, err := cleanPrefix(v.AsString())
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

// checkBucketsOverlap refuses every dataset of the buckets_from store
// whose prefix is, is inside or holds buckets_prefix ("" holds all).
func (d *decoder) checkBucketsOverlap() hcl.Diagnostics {
	if d.bucketsFromAt == nil {
		return nil // no buckets made, or their settings already failed
	}
	l := d.cfg.Server.S3
	var diags hcl.Diagnostics
	for _, ds := range d.cfg.Datasets {
		if ds.Store == *l.BucketsFrom && overlaps(ds.Prefix, l.BucketsPrefix) {
			diags = append(diags, hclread.ErrorAt(d.keysAt[ds.Name], fmt.Sprintf("Dataset %q overlaps the S3 buckets", ds.Name),
				"Dataset %q keeps its keys in %s, where the server's s3 block (buckets_from at %s) makes buckets %s: a bucket made there could read and overwrite the dataset around its access block. %s",
				ds.Name, keysPlace(ds), d.bucketsFromAt, bucketsPlace(l.BucketsPrefix), bucketsFix(l.BucketsPrefix)))
		}
	}
	return diags
}

func keysPlace(ds Dataset) string {
	if ds.Prefix == "" {
		return "the whole of " + ds.Store.String()
	}
	return fmt.Sprintf("%s under %q", ds.Store, ds.Prefix)
}

func bucketsPlace(prefix string) string {
	if prefix == "" {
		return "at its top (buckets_prefix is not set)"
	}
	return fmt.Sprintf("under %q", prefix)
}

func bucketsFix(prefix string) string {
	if prefix == "" {
		return `Set buckets_prefix in the s3 block (such as "buckets") to a prefix outside every dataset's, and give this dataset a prefix outside it.`
	}
	return fmt.Sprintf("Give the dataset a prefix outside %q, or set buckets_prefix to a prefix outside every dataset's.", prefix)
}

// BucketOverlaps reports a dataset declared over the store CreateBucket
// makes buckets in whose keys would be, hold or lie inside those of the
// bucket named bucket, and whether there is one. Validation refuses such
// datasets for any bucket; this is the same question asked of one bucket
// when it is made. It is no name check: call ValidBucketName first.
func (c *Config) BucketOverlaps(bucket string) (dataset string, ok bool) {
	l := c.Server.S3
	if l == nil || l.BucketsFrom == nil {
		return "", false
	}
	at := path.Join(l.BucketsPrefix, bucket) // cleaned: a name that climbs is judged where it lands
	if at == "." {
		at = ""
	}
	for _, ds := range c.Datasets {
		if ds.Store == *l.BucketsFrom && overlaps(ds.Prefix, at) {
			return ds.Name, true
		}
	}
	return "", false
}

// overlaps reports whether key prefixes a and b share keys: one is the
// other or inside it, by whole segments ("a/b" is inside "a", "ab" is
// not); "" is the whole store.
func overlaps(a, b string) bool { return inside(a, b) || inside(b, a) }

func inside(a, b string) bool { return b == "" || a == b || strings.HasPrefix(a, b+"/") }
