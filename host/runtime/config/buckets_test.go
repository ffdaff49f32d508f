package config_test

import (
	"strings"
	"testing"

	"github.com/zarrgw/zarrgw/host/runtime/config"
)

// bucketsSrc declares two stores (lines 1-6), a dataset (lines 7-10) and
// a server whose S3 listener makes buckets in store.fs.local (line 16),
// below prefix (line 17; none when it is "-").
func bucketsSrc(dsStore, dsPrefix, prefix string) string {
	src := `store "fs" "local" {
  root = "/data"
}
store "fs" "other" {
  root = "/other"
}
dataset "private" {
  store  = ` + dsStore + `
  prefix = "` + dsPrefix + `"
}
server {
  listen = ":80"
  s3 {
    listen = "127.0.0.1:9000"

    buckets_from   = "store.fs.local"
    buckets_prefix = "` + prefix + `"
  }
}
`
	if dsPrefix == "-" {
		src = strings.Replace(src, "  prefix = \"-\"\n", "  # no prefix\n", 1)
	}
	if prefix == "-" {
		src = strings.Replace(src, "    buckets_prefix = \"-\"\n", "\n", 1)
	}
	return src
}

// A dataset whose keys could be a bucket's, or hold one, in the store
// CreateBucket makes buckets in is refused: a principal allowed to make
// buckets could otherwise read and overwrite it around its access block.
func TestDatasetOverlappingBuckets(t *testing.T) {
	cases := []struct {
		name                     string
		dsStore, dsPrefix, where string
		line                     int
		want                     []string
	}{
		{"dataset without a prefix", "store.fs.local", "-", "buckets", 8, []string{"the whole of store.fs.local"}},
		{"dataset at the buckets' prefix", "store.fs.local", "buckets", "buckets", 9, []string{`"buckets"`}},
		{"dataset inside the buckets' prefix", "store.fs.local", "buckets/private.zarr", "buckets", 9, []string{`"buckets/private.zarr"`}},
		{"dataset holding the buckets' prefix", "store.fs.local", "s3", "s3/buckets", 9, []string{`"s3"`}},
		{"prefix written with a slash", "store.fs.local", "buckets/", "buckets/", 9, nil},
		{"buckets at the top of the store", "store.fs.local", "private.zarr", "-", 9, []string{"buckets_prefix is not set", `such as "buckets"`}},
		{"buckets_prefix empty", "store.fs.local", "private.zarr", "", 9, []string{"buckets_prefix is not set"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg, diags := parse(t, bucketsSrc(c.dsStore, c.dsPrefix, c.where), config.Options{})
			want := append([]string{`Dataset "private"`, "buckets_from at /etc/zarrgw/test.hcl:16", "buckets_prefix", "prefix outside"}, c.want...)
			wantOneError(t, cfg, diags, c.line, want...)
		})
	}
}

// Prefixes nest by segments: a dataset beside the buckets, or in another
// store, is served.
func TestDatasetBesideBuckets(t *testing.T) {
	for _, c := range []struct{ dsStore, dsPrefix, where string }{
		{"store.fs.local", "bucketsx", "buckets"},
		{"store.fs.local", "buck", "buckets"},
		{"store.fs.local", "data/era5.zarr", "buckets"},
		{"store.fs.local", "a/bc", "a/b"},
		{"store.fs.other", "-", "-"},
		{"store.fs.other", "buckets", "buckets"},
	} {
		cfg := mustParse(t, bucketsSrc(c.dsStore, c.dsPrefix, c.where), config.Options{})
		if want := strings.Trim(c.where, "-"); cfg.Server.S3.BucketsPrefix != want {
			t.Errorf("%+v: BucketsPrefix %q", c, cfg.Server.S3.BucketsPrefix)
		}
	}
}

// buckets_prefix is checked as a dataset's prefix is, and means nothing
// without buckets_from.
func TestBucketsPrefixErrors(t *testing.T) {
	cfg, diags := parse(t, bucketsSrc("store.fs.local", "data", "../up"), config.Options{})
	wantOneError(t, cfg, diags, 17, "Invalid buckets_prefix", `"../up/"`)

	src := strings.Replace(bucketsSrc("store.fs.local", "data", "buckets"), `buckets_from   = "store.fs.local"`, "", 1)
	cfg, diags = parse(t, src, config.Options{})
	if len(diags) != 1 || diags.HasErrors() || !strings.Contains(diags[0].Summary, "buckets_prefix without buckets_from") {
		t.Errorf("want a warning:\n%s", render(cfg, diags))
	}
}

// BucketOverlaps, for the gateway to ask at CreateBucket, finds a dataset
// of the buckets' store whose keys the bucket's would be, hold, or be held
// by, whatever the configuration was validated against.
func TestBucketOverlaps(t *testing.T) {
	local, other := config.StoreRef{Type: "fs", Name: "local"}, config.StoreRef{Type: "fs", Name: "other"}
	cases := []struct {
		prefix  string // buckets_prefix
		ds      config.Dataset
		bucket  string
		overlap bool
	}{
		{"buckets", config.Dataset{Store: local, Prefix: "buckets/x"}, "x", true},
		{"buckets", config.Dataset{Store: local, Prefix: "buckets/x/y"}, "x", true},
		{"buckets", config.Dataset{Store: local, Prefix: "buckets"}, "x", true},
		{"buckets", config.Dataset{Store: local, Prefix: ""}, "x", true},
		{"buckets", config.Dataset{Store: local, Prefix: "buckets/xy"}, "x", false},
		{"buckets", config.Dataset{Store: local, Prefix: "x"}, "x", false},
		{"buckets", config.Dataset{Store: other, Prefix: ""}, "x", false},
		{"", config.Dataset{Store: local, Prefix: "x.zarr"}, "x.zarr", true},
		{"", config.Dataset{Store: local, Prefix: "x.zarr"}, "y", false},
		{"buckets", config.Dataset{Store: local, Prefix: "x"}, "../x", true},      // a name that climbs lands where it lands
		{"buckets", config.Dataset{Store: local, Prefix: "buckets/y"}, ".", true}, // the buckets' prefix itself
	}
	for _, c := range cases {
		c.ds.Name = "d"
		cfg := &config.Config{Datasets: []config.Dataset{c.ds},
			Server: config.Server{S3: &config.S3Listener{BucketsFrom: &local, BucketsPrefix: c.prefix}}}
		name, ok := cfg.BucketOverlaps(c.bucket)
		if ok != c.overlap || ok && name != "d" || !ok && name != "" {
			t.Errorf("buckets_prefix %q, dataset %+v, bucket %q: %q, %v", c.prefix, c.ds, c.bucket, name, ok)
		}
	}
	cfg := &config.Config{Datasets: []config.Dataset{{Name: "d", Store: local}}, Server: config.Server{S3: &config.S3Listener{}}}
	if _, ok := cfg.BucketOverlaps("x"); ok {
		t.Error("without buckets_from no bucket is made")
	}
}
