package s3

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
)

// Minimal reproductions, with aws-sdk-go-v2, of what the Debian clients
// ran into (BUGS.md has the reports).

// sdk is an SDK client of the gateway's S3 API signing as the principal.
func (g *gateway) sdk() *s3.Client {
	return s3.New(s3.Options{
		Region:       g.region,
		BaseEndpoint: aws.String(g.s3),
		UsePathStyle: true,
		Credentials:  credentials.NewStaticCredentialsProvider(keyID, g.secret, ""),
	})
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
