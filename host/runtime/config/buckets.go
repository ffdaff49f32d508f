package config

import (
	"fmt"
	"path"
	"strings"

	"github.com/hashicorp/hcl/v2"

	"github.com/zarrgw/zarrgw/host/runtime/config/hclread"
)

// CreateBucket makes buckets as key prefixes of the buckets_from store,
// below buckets_prefix, readable and writable by bucket_access. A dataset
// whose keys lie there too would be reachable through a bucket, around
// its own access block: validation refuses such a dataset, and the
// gateway asks BucketOverlaps before making a bucket.

// checkBucketsOverlap refuses every dataset of the buckets_from store
// whose prefix is, is inside or holds buckets_prefix ("" holds all).
func (d *decoder) checkBucketsOverlap() hcl.Diagnostics {
	at := d.srv.BucketsFromAt()
	if at == nil {
		return nil // no buckets made, or their settings already failed
	}
	l := d.cfg.Server.S3
	var diags hcl.Diagnostics
	for _, ds := range d.cfg.Datasets {
		if ds.Store == *l.BucketsFrom && overlaps(ds.Prefix, l.BucketsPrefix) {
			diags = append(diags, hclread.ErrorAt(d.keysAt[ds.Name], fmt.Sprintf("Dataset %q overlaps the S3 buckets", ds.Name),
				"Dataset %q keeps its keys in %s, where the server's s3 block (buckets_from at %s) makes buckets %s: a bucket made there could read and overwrite the dataset around its access block. %s",
				ds.Name, keysPlace(ds), at, bucketsPlace(l.BucketsPrefix), bucketsFix(l.BucketsPrefix)))
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

// checkBucketNames reports datasets whose names cannot be bucket names
// when the S3 listener is on.
func (d *decoder) checkBucketNames() hcl.Diagnostics {
	if d.cfg.Server.S3 == nil {
		return nil
	}
	var diags hcl.Diagnostics
	for _, ds := range d.cfg.Datasets {
		if !ValidBucketName(ds.Name) {
			diags = append(diags, hclread.ErrorAt(ds.DeclRange, "Dataset name is not a bucket name",
				"Dataset %q is served as an S3 bucket of the same name, and S3 bucket names are 3 to 63 lower-case letters, digits, dots and dashes, starting and ending with a letter or digit. Rename it, or leave out the server's s3 block.", ds.Name))
		}
	}
	return diags
}
