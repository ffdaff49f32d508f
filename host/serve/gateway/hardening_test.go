package gateway_test

import (
	"context"
	"encoding/xml"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/zarrgw/zarrgw/host/runtime/config"
)

// nestedReserved are keys with one of the gateway's own names below the
// first segment: a bucket's marker and a multipart upload's record, as
// they sit in the store that holds buckets.
var nestedReserved = []string{"evebucket/.zarrgw_bucket", "bobdata/.zarrgw_multipart/u1/upload", "a/b/.zarrgw_x"}

// The gateway's own names are refused in every segment of a key, on the
// key API and on S3, for reads, writes and copies: no key path reaches a
// bucket's marker or its uploads, whatever dataset is over their store.
func TestNestedReservedNamesRefused(t *testing.T) {
	sg := newS3Gateway(t, s3Options{})
	plantReserved(t, filepath.Join(sg.root, "open"))
	c := sg.writer()
	ctx := context.Background()
	for _, key := range nestedReserved {
		for _, method := range []string{http.MethodGet, http.MethodHead, http.MethodPut, http.MethodDelete} {
			resp, body := sg.keys.do(t, method, "/d/open/"+key, "x", "Authorization: Bearer "+writerToken)
			if resp.StatusCode != http.StatusBadRequest {
				t.Errorf("%s /d/open/%s: %d %q, want 400", method, key, resp.StatusCode, body)
			}
		}
		if _, err := c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("open"), Key: aws.String(key)}); errorCode(err) != "InvalidArgument" {
			t.Errorf("S3 GetObject open/%s: %v, want InvalidArgument", key, err)
		}
		if _, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("open"), Key: aws.String(key), Body: strings.NewReader("x")}); errorCode(err) != "InvalidArgument" {
			t.Errorf("S3 PutObject open/%s: %v, want InvalidArgument", key, err)
		}
		if _, err := c.CopyObject(ctx, &s3.CopyObjectInput{Bucket: aws.String("open"), Key: aws.String("copied"),
			CopySource: aws.String("open/" + key)}); errorCode(err) != "InvalidArgument" {
			t.Errorf("S3 CopyObject from open/%s: %v, want InvalidArgument", key, err)
		}
		if _, err := c.CopyObject(ctx, &s3.CopyObjectInput{Bucket: aws.String("open"), Key: aws.String(key),
			CopySource: aws.String("open/plain")}); errorCode(err) != "InvalidArgument" {
			t.Errorf("S3 CopyObject to open/%s: %v, want InvalidArgument", key, err)
		}
	}
	// the planted values are untouched
	for _, key := range nestedReserved {
		if b, err := os.ReadFile(filepath.Join(sg.root, "open", key)); err != nil || string(b) != "planted" {
			t.Errorf("%s after the refused requests: %q, %v", key, b, err)
		}
	}
}

// Listings leave out keys with a reserved segment anywhere, on both APIs.
func TestListingsHideNestedReservedNames(t *testing.T) {
	sg := newS3Gateway(t, s3Options{})
	plantReserved(t, filepath.Join(sg.root, "open"))
	for _, q := range []string{"?list", "?list&delimiter=/", "?list&prefix=a/", "?list&prefix=bobdata/&delimiter=/"} {
		resp, body := sg.keys.do(t, http.MethodGet, "/d/open/"+q, "")
		if resp.StatusCode != http.StatusOK || strings.Contains(body, ".zarrgw_") || !strings.Contains(q+body, "plain") && q == "?list" {
			t.Errorf("GET /d/open/%s: %d %s", q, resp.StatusCode, body)
		}
	}
	c := sg.writer()
	for _, delim := range []string{"", "/"} {
		in := &s3.ListObjectsV2Input{Bucket: aws.String("open")}
		if delim != "" {
			in.Delimiter = aws.String(delim)
		}
		out, err := c.ListObjectsV2(context.Background(), in)
		if err != nil {
			t.Fatal(err)
		}
		var listed []string
		for _, o := range out.Contents {
			listed = append(listed, *o.Key)
		}
		for _, p := range out.CommonPrefixes {
			listed = append(listed, *p.Prefix)
		}
		if got := strings.Join(listed, " "); strings.Contains(got, ".zarrgw_") || !strings.Contains(got, "plain") {
			t.Errorf("ListObjectsV2 delimiter %q: %s", delim, got)
		}
	}
}

// plantReserved writes the nested reserved keys, and a plain one, into a
// dataset's directory as a process sharing the store would.
func plantReserved(t *testing.T, dir string) {
	t.Helper()
	for _, key := range append(nestedReserved, "plain") {
		p := filepath.Join(dir, key)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("planted"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// A key over 1024 bytes is refused as a client's error (400, S3's
// KeyTooLongError), and the answer does not repeat it.
func TestLongKeyRefusedWithoutEcho(t *testing.T) {
	sg := newS3Gateway(t, s3Options{})
	long := strings.Repeat("k", 10000)
	for _, method := range []string{http.MethodGet, http.MethodPut} {
		resp, body := sg.keys.do(t, method, "/d/open/"+long, "x")
		if resp.StatusCode != http.StatusBadRequest || strings.Contains(body, strings.Repeat("k", 100)) {
			t.Errorf("%s of a 10000-byte key: %d %.200q, want 400 without the key", method, resp.StatusCode, body)
		}
	}
	resp, body := sg.send(t, signedRequest{method: http.MethodGet, path: "/open/" + long})
	var doc struct {
		Code string
	}
	xml.Unmarshal([]byte(body), &doc)
	if resp.StatusCode != http.StatusBadRequest || doc.Code != "KeyTooLongError" || strings.Contains(body, strings.Repeat("k", 100)) {
		t.Errorf("S3 GET of a 10000-byte key: %d %.300q, want 400 KeyTooLongError without the key", resp.StatusCode, body)
	}
	// a segment longer than the filesystem names is the client's error too
	if resp, body := sg.keys.do(t, http.MethodPut, "/d/open/"+strings.Repeat("s", 300), "x"); resp.StatusCode != http.StatusBadRequest {
		t.Errorf("PUT of a 300-byte segment on an fs store: %d %.200q, want 400", resp.StatusCode, body)
	}
	// 1024 bytes is a key like any other
	edge := strings.Repeat(strings.Repeat("e", 203)+"/", 5) + "eeee" // 5 x 204 + 4
	sg.keys.put(t, "/d/open/"+edge, "v")
	if resp, body := sg.keys.do(t, http.MethodGet, "/d/open/"+edge, ""); resp.StatusCode != http.StatusOK || body != "v" {
		t.Errorf("GET of a 1024-byte key: %d %q", resp.StatusCode, body)
	}
}

// A missing key's answer says "not found" and the key; the store's type
// and directory stay in the log.
func TestNotFoundNamesNoInternals(t *testing.T) {
	tg := newTestGateway(t)
	resp, body := tg.do(t, http.MethodGet, "/d/open/no/such/key", "")
	if resp.StatusCode != http.StatusNotFound || body != "not found: no/such/key\n" {
		t.Errorf("GET of a missing key: %d %q, want 404 \"not found: no/such/key\"", resp.StatusCode, body)
	}
	if strings.Contains(body, tg.root) || strings.Contains(body, "fs") {
		t.Errorf("the 404 names the store's internals: %q", body)
	}
}

// Listing parameters no key can match are answered without reaching the
// store: control characters (which an XML answer cannot carry back) are
// refused, a prefix with an empty or ".." segment lists nothing.
func TestS3ListingOddParameters(t *testing.T) {
	sg := newS3Gateway(t, s3Options{})
	sg.keys.put(t, "/d/open/k", "v")
	for _, q := range []string{"delimiter=%00", "prefix=a%1B", "list-type=2&start-after=%7F", "marker=%0A"} {
		resp, body := sg.send(t, signedRequest{method: http.MethodGet, path: "/open?" + q})
		if resp.StatusCode != http.StatusBadRequest || !strings.Contains(body, "InvalidArgument") || strings.ContainsAny(body, "\x00\x1b\x7f") {
			t.Errorf("list with %s: %d %q, want 400 InvalidArgument", q, resp.StatusCode, body)
		}
	}
	sg.rec.reset()
	for _, q := range []string{"prefix=../", "prefix=a//b", "prefix=./k"} {
		resp, body := sg.send(t, signedRequest{method: http.MethodGet, path: "/open?list-type=2&" + q})
		if resp.StatusCode != http.StatusOK || !strings.Contains(body, "<KeyCount>0</KeyCount>") {
			t.Errorf("list with %s: %d %s, want an empty listing", q, resp.StatusCode, body)
		}
	}
	if n := sg.rec.reset(); n != 0 {
		t.Errorf("listings of impossible prefixes made %d store calls", n)
	}
}

// Under a max_request_size below S3's 5 MiB parts a multipart upload
// could never complete: it is refused when it starts, nothing staged.
func TestS3MultipartRefusedUnderSmallRequests(t *testing.T) {
	sg := newS3Gateway(t, s3Options{maxRequest: "1MiB"})
	_, err := sg.writer().CreateMultipartUpload(context.Background(), &s3.CreateMultipartUploadInput{Bucket: aws.String("open"), Key: aws.String("o")})
	if errorCode(err) != "InvalidRequest" || !strings.Contains(err.Error(), "max_request_size") {
		t.Fatalf("CreateMultipartUpload under a 1 MiB max_request_size: %v, want InvalidRequest naming max_request_size", err)
	}
	if _, err := os.Stat(filepath.Join(sg.root, "open", ".zarrgw_multipart")); !os.IsNotExist(err) {
		t.Fatalf("a refused upload staged something: %v", err)
	}
}

// The byte counter counts body bytes that arrived, not what a refused
// request declared in its Content-Length.
func TestRequestBytesCountWhatArrived(t *testing.T) {
	tg := newTestGateway(t)
	big := strings.Repeat("x", 1<<20)
	if resp, _ := tg.do(t, http.MethodPut, "/d/frozen/k", big); resp.StatusCode/100 == 2 {
		t.Fatalf("a PUT to a read-only dataset: %d", resp.StatusCode)
	}
	tg.put(t, "/d/open/k", strings.Repeat("y", 1000))
	_, body := tg.do(t, http.MethodGet, "/metrics", "")
	for _, want := range []string{`zarrgw_http_request_bytes_total{dataset="open"} 1000`} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	if strings.Contains(body, `zarrgw_http_request_bytes_total{dataset="frozen"} 1.048576e+06`) {
		t.Errorf("/metrics counts the refused request's declared megabyte")
	}
}

// With buckets_prefix, made buckets live below it in the buckets_from
// store, and come back there after a restart.
func TestS3BucketsPrefix(t *testing.T) {
	sg := newS3Gateway(t, s3Options{s3Extra: `buckets_prefix = "made-buckets"`})
	c := sg.writer()
	ctx := context.Background()
	if _, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String("bob")}); err != nil {
		t.Fatal(err)
	}
	putBytes(t, c, "bob", "k", []byte("v"))
	if b, err := os.ReadFile(filepath.Join(sg.root, "made", "made-buckets", "bob", "k")); err != nil || string(b) != "v" {
		t.Fatalf("bob/k below buckets_prefix: %q, %v", b, err)
	}
	again := newS3Gateway(t, s3Options{root: sg.root, s3Extra: `buckets_prefix = "made-buckets"`})
	if got := getBytes(t, again.writer(), "bob", "k", ""); string(got) != "v" {
		t.Fatalf("after a restart bob/k holds %q", got)
	}
}

// Should a layout where made buckets share keys with a dataset get past
// validation (it refuses them), CreateBucket still refuses the names that
// would, and a marker found there at start makes no bucket.
func TestS3CreateBucketRefusesDatasetKeys(t *testing.T) {
	// "inmade" declared over the buckets' store, at the prefix a bucket
	// "private-data" would take
	overlap := func(cfg *config.Config) {
		for i := range cfg.Datasets {
			if cfg.Datasets[i].Name == "private" {
				cfg.Datasets[i].Store = *cfg.Server.S3.BucketsFrom
				cfg.Datasets[i].Prefix = "private-data"
			}
		}
	}
	sg := newS3Gateway(t, s3Options{edit: overlap})
	c := sg.writer()
	ctx := context.Background()
	for _, name := range []string{"private-data"} {
		if _, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(name)}); errorCode(err) != "BucketAlreadyExists" {
			t.Errorf("CreateBucket %s over the dataset private: %v, want BucketAlreadyExists", name, err)
		}
	}
	if _, err := os.Stat(filepath.Join(sg.root, "made", "private-data", ".zarrgw_bucket")); !os.IsNotExist(err) {
		t.Fatalf("a refused bucket left its marker: %v", err)
	}
	// a marker planted there makes no bucket at the next start
	os.MkdirAll(filepath.Join(sg.root, "made", "private-data"), 0o755)
	os.WriteFile(filepath.Join(sg.root, "made", "private-data", ".zarrgw_bucket"), []byte("planted"), 0o644)
	again := newS3Gateway(t, s3Options{root: sg.root, edit: overlap})
	out, err := again.client(readerKeyID, readerSecret).ListBuckets(ctx, &s3.ListBucketsInput{})
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range out.Buckets {
		if *b.Name == "private-data" {
			t.Fatalf("a planted marker over a dataset's keys made the bucket %s", *b.Name)
		}
	}
}
