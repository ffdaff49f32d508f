package s3

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
)

// Minimal reproductions, with aws-sdk-go-v2, of what the Debian clients
// ran into, kept so that none comes back.

// sdk is an SDK client of the gateway's S3 API signing as the principal.
func (g *gateway) sdk() *s3.Client {
	return s3.New(s3.Options{
		Region:       g.region,
		BaseEndpoint: aws.String(g.s3),
		UsePathStyle: true,
		Credentials:  credentials.NewStaticCredentialsProvider(keyID, g.secret, ""),
	})
}

// removeBuckets empties and deletes every bucket the principal sees
// (those CreateBucket made; declared datasets are never deleted).
func (g *gateway) removeBuckets(t *testing.T) {
	t.Helper()
	c := g.sdk()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	list, err := c.ListBuckets(ctx, &s3.ListBucketsInput{})
	if err != nil {
		t.Fatalf("ListBuckets: %v", err)
	}
	for _, b := range list.Buckets {
		p := s3.NewListObjectsV2Paginator(c, &s3.ListObjectsV2Input{Bucket: b.Name})
		for p.HasMorePages() {
			page, err := p.NextPage(ctx)
			if err != nil {
				break
			}
			for _, o := range page.Contents {
				c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: b.Name, Key: o.Key})
			}
		}
		c.DeleteBucket(ctx, &s3.DeleteBucketInput{Bucket: b.Name})
	}
}

// Every object has a Last-Modified, Zarr metadata documents included:
// s3cmd get --recursive reads it from HEAD and stops with KeyError
// 'last-modified' on a .zarray or zarr.json without one.
func TestHeadLastModified(t *testing.T) {
	g := startGateway(t, options{})
	g.putKey(t, "data", "plain.bin", []byte("bytes"))
	g.putKey(t, "data", "a.zarr/.zattrs", []byte(`{}`))
	g.putKey(t, "data", "a.zarr/.zarray", []byte(`{"zarr_format":2,"shape":[4],"chunks":[2],"dtype":"<i4","compressor":null,"fill_value":0,"order":"C","filters":null}`))
	g.putKey(t, "data", "b.zarr/zarr.json", []byte(`{"zarr_format":3,"node_type":"group","attributes":{}}`))
	c := g.sdk()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for _, key := range []string{"plain.bin", "a.zarr/.zarray", "a.zarr/.zattrs", "b.zarr/zarr.json"} {
		// read once so that the metadata cache holds it
		if _, err := c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("data"), Key: aws.String(key)}); err != nil {
			t.Fatalf("GetObject %s: %v", key, err)
		}
		for _, method := range []string{http.MethodHead, http.MethodGet} {
			var mod *time.Time
			if method == http.MethodHead {
				out, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String("data"), Key: aws.String(key)})
				if err != nil {
					t.Fatalf("HeadObject %s: %v", key, err)
				}
				mod = out.LastModified
			} else {
				out, err := c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("data"), Key: aws.String(key)})
				if err != nil {
					t.Fatalf("GetObject %s: %v", key, err)
				}
				out.Body.Close()
				mod = out.LastModified
			}
			if mod == nil || mod.IsZero() {
				t.Errorf("%s %s through the S3 API: no Last-Modified", method, key)
			}
		}
	}
}

// An x-amz-* header the signature does not cover is refused (S3:
// AccessDenied, "There were headers present in the request which were not
// signed"): otherwise whoever can alter a request in flight turns a signed
// PutObject of an empty body into a copy of any object the principal may
// read.
func TestUnsignedAmzHeaderRefused(t *testing.T) {
	g := startGateway(t, options{})
	g.putKey(t, "data", "secret/source", []byte("the source's bytes"))
	const empty = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b854"
	req, err := http.NewRequest(http.MethodPut, g.s3+"/data/target", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("X-Amz-Content-Sha256", empty)
	creds := aws.Credentials{AccessKeyID: keyID, SecretAccessKey: g.secret}
	if err := v4.NewSigner().SignHTTP(context.Background(), creds, req, empty, "s3", g.region, time.Now()); err != nil {
		t.Fatal(err)
	}
	req.Header.Set("X-Amz-Copy-Source", "data/secret/source") // after signing
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden || !strings.Contains(string(body), "<Code>AccessDenied</Code>") {
		t.Errorf("PUT signed without x-amz-copy-source, sent with it: %d %s; want 403 AccessDenied", resp.StatusCode, body)
	}
	if code, b := g.fetch(t, http.MethodGet, g.keyURL("data", "target"), nil); code == http.StatusOK {
		t.Errorf("the unsigned x-amz-copy-source was acted on: data/target holds %q", b)
	}
}

// If-Match and If-None-Match hold an ETag with or without its quotes: S3
// compares the value either way (aws s3api head-object --if-match takes
// what a person pastes).
func TestUnquotedETagConditions(t *testing.T) {
	g := startGateway(t, options{})
	c := g.sdk()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	put, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("data"), Key: aws.String("k"), Body: strings.NewReader("value")})
	if err != nil {
		t.Fatal(err)
	}
	bare := strings.Trim(*put.ETag, `"`)
	if _, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String("data"), Key: aws.String("k"), IfMatch: aws.String(bare)}); err != nil {
		t.Errorf("HeadObject If-Match: %s (the current ETag unquoted): %v, want 200", bare, err)
	}
	if _, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String("data"), Key: aws.String("k"), IfNoneMatch: aws.String(bare)}); err == nil || !strings.Contains(err.Error(), "304") {
		t.Errorf("HeadObject If-None-Match: %s (the current ETag unquoted): %v, want 304", bare, err)
	}
}
