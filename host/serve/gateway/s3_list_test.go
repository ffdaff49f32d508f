package gateway_test

import (
	"context"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
)

// listKeys are keys chosen to sort around the delimiter ('-' and '.'
// before '/', '0' after it) and to need encoding (none is also a prefix of
// others: the filesystem store holds a key or keys below it, not both).
var listKeys = []string{
	"a-b", "a.b", "a/b/c", "a/b/d", "a/c/d/e", "a/cc", "a0", "ab",
	"b/1", "b/2", "b/3/x", "b/3/y", "b/4",
	"c d/e+f", "c d/g", "é/1", "é/2", "z",
	"zarr.json", "arr/zarr.json", "arr/c/0/0", "arr/c/0/1", "arr/c/1/0", "arr/c/1/1",
}

// entry is a key or a common prefix, in listing order.
type entry struct {
	name     string
	isPrefix bool
}

// oracle lists what S3 answers for prefix and delimiter: every key with
// the prefix, those with the delimiter after it rolled up into one common
// prefix each, all in byte order.
func oracle(keys []string, prefix, delimiter string) []entry {
	sorted := slices.Clone(keys)
	slices.Sort(sorted)
	var out []entry
	for _, k := range sorted {
		if !strings.HasPrefix(k, prefix) {
			continue
		}
		e := entry{name: k}
		if i := strings.Index(k[len(prefix):], delimiter); delimiter != "" && i >= 0 {
			e = entry{k[:len(prefix)+i+len(delimiter)], true}
		}
		if len(out) > 0 && out[len(out)-1] == e {
			continue
		}
		out = append(out, e)
	}
	return out
}

// merge puts a page's keys and common prefixes back in listing order.
func merge(keys []types.Object, prefixes []types.CommonPrefix, decode func(string) string) []entry {
	var out []entry
	for _, o := range keys {
		out = append(out, entry{decode(*o.Key), false})
	}
	for _, p := range prefixes {
		out = append(out, entry{decode(*p.Prefix), true})
	}
	slices.SortFunc(out, func(a, b entry) int { return strings.Compare(a.name, b.name) })
	return out
}

// Paging through a listing, with every prefix, delimiter and page size,
// in V1 and V2, gives what S3 would: each key or common prefix once, in
// order, with tokens that never repeat; the gateway's own keys (a staged
// multipart upload) never show.
func TestS3ListingPages(t *testing.T) {
	sg := newS3Gateway(t, s3Options{})
	c := sg.writer()
	ctx := context.Background()
	for _, k := range listKeys {
		putBytes(t, c, "open", k, []byte(k))
	}
	if _, err := c.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: aws.String("open"), Key: aws.String("a/b")}); err != nil {
		t.Fatal(err)
	}
	for _, prefix := range []string{"", "a", "a/", "a/b", "b/", "b/3/", "c", "é/", "arr/c/", "zz", "."} {
		for _, delimiter := range []string{"", "/", "b", "/c"} {
			want := oracle(listKeys, prefix, delimiter)
			for _, max := range []int32{1, 2, 5, 1000} {
				for _, v := range []string{"v1", "v2", "v2-url"} {
					got := listPages(t, c, v, prefix, delimiter, max)
					if !slices.Equal(got, want) {
						t.Fatalf("%s prefix %q delimiter %q max-keys %d:\n got  %v\n want %v", v, prefix, delimiter, max, got, want)
					}
				}
			}
		}
	}
	// start-after skips what sorts up to it
	out, err := c.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: aws.String("open"), StartAfter: aws.String("b/3"), Prefix: aws.String("b/")})
	if err != nil || len(out.Contents) != 3 || *out.Contents[0].Key != "b/3/x" {
		t.Fatalf("start-after b/3: %+v %v", out.Contents, err)
	}
}

// listPages pages through one listing and fails on a repeated token or an
// overfull page.
func listPages(t *testing.T, c *s3.Client, version, prefix, delimiter string, max int32) []entry {
	t.Helper()
	ctx := context.Background()
	seen := map[string]bool{}
	var all []entry
	token := ""
	for pages := 0; ; pages++ {
		if pages > 100 {
			t.Fatalf("%s %q %q: more than 100 pages", version, prefix, delimiter)
		}
		var page []entry
		var truncated bool
		var next string
		if version == "v1" {
			out, err := c.ListObjects(ctx, &s3.ListObjectsInput{Bucket: aws.String("open"), Prefix: aws.String(prefix),
				Delimiter: aws.String(delimiter), MaxKeys: aws.Int32(max), Marker: aws.String(token)})
			if err != nil {
				t.Fatal(err)
			}
			page, truncated = merge(out.Contents, out.CommonPrefixes, func(s string) string { return s }), aws.ToBool(out.IsTruncated)
			next = aws.ToString(out.NextMarker)
		} else {
			in := &s3.ListObjectsV2Input{Bucket: aws.String("open"), Prefix: aws.String(prefix), Delimiter: aws.String(delimiter), MaxKeys: aws.Int32(max)}
			if token != "" {
				in.ContinuationToken = aws.String(token)
			}
			decode := func(s string) string { return s }
			if version == "v2-url" {
				in.EncodingType = types.EncodingTypeUrl
				decode = func(s string) string {
					d, err := url.QueryUnescape(s)
					if err != nil {
						t.Fatalf("encoding-type=url: %q does not decode: %v", s, err)
					}
					return d
				}
			}
			out, err := c.ListObjectsV2(ctx, in)
			if err != nil {
				t.Fatal(err)
			}
			page, truncated = merge(out.Contents, out.CommonPrefixes, decode), aws.ToBool(out.IsTruncated)
			next = aws.ToString(out.NextContinuationToken)
			if int(aws.ToInt32(out.KeyCount)) != len(page) {
				t.Fatalf("KeyCount %d for %d entries", aws.ToInt32(out.KeyCount), len(page))
			}
		}
		if len(page) > int(max) {
			t.Fatalf("%s: a page of %d entries for max-keys %d", version, len(page), max)
		}
		all = append(all, page...)
		if !truncated {
			return all
		}
		if next == "" || seen[next] {
			t.Fatalf("%s %q %q: next token %q empty or given twice", version, prefix, delimiter, next)
		}
		seen[next] = true
		token = next
	}
}
