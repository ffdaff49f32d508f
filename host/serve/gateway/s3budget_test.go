package gateway_test

import (
	"bytes"
	"context"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/zarrgw/zarrgw/host/runtime/config"
	"github.com/zarrgw/zarrgw/host/runtime/registry"
)

// cachedDataset is dataset "cachedopen": the fs store behind the cache
// transformer, a stack that takes values whole.
const cachedDataset = `
store "fs" "local" {
  root = "/unused"
}
dataset "cachedopen" {
  store  = store.fs.local
  prefix = "cachedopen"
  transformer "cache" {
  }
  access {
    read  = ["*"]
    write = ["*"]
  }
}`

// newWholeValuesGateway is an S3 gateway with dataset "cachedopen" beside
// the others, taking requests of up to 64 MiB, with the smallest budget
// of bodies (16 MiB) and max_object_size (40 MiB) above it.
func newWholeValuesGateway(t *testing.T, log *syncBuffer) *s3Gateway {
	t.Helper()
	cached := cachedOpenDataset(t)
	return newS3Gateway(t, s3Options{maxRequest: "64MiB", log: log, edit: func(cfg *config.Config) {
		cfg.Datasets = append(cfg.Datasets, cached)
		cfg.Server.BodyMemory = 16 << 20
	}})
}

// cachedOpenDataset is cachedDataset parsed.
func cachedOpenDataset(t *testing.T) config.Dataset {
	t.Helper()
	extra, diags := config.Parse([]byte(cachedDataset), "/etc/zarrgw/extra.hcl", registry.Bundled().Catalog())
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	return extra.Datasets[0]
}

// Copies and completed uploads that build a value in memory take it from
// body_memory, the one budget of what writes hold: within it they are
// made; beyond it (though within max_object_size) they are refused with
// EntityTooLarge (the log naming body_memory), and nothing is written.
func TestS3WholeValuesWithinBodyMemory(t *testing.T) {
	log := &syncBuffer{}
	sg := newWholeValuesGateway(t, log)
	c := sg.writer()
	ctx := context.Background()
	big := bytes.Repeat([]byte("0123456789abcdef"), 20<<20/16) // 20 MiB: over the budget, under max_object_size
	small := big[:4<<20]
	sg.keys.put(t, "/d/open/big", string(big)) // an SDK sends it as one aws-chunked chunk, over the 16 MiB one may hold
	sg.keys.put(t, "/d/open/small", string(small))

	copyTo := func(key, src string) error {
		_, err := c.CopyObject(ctx, &s3.CopyObjectInput{Bucket: aws.String("cachedopen"), Key: aws.String(key), CopySource: aws.String(src)})
		return err
	}
	if err := copyTo("small", "open/small"); err != nil {
		t.Fatalf("a copy within body_memory: %v", err)
	}
	if got := getBytes(t, c, "cachedopen", "small", ""); !bytes.Equal(got, small) {
		t.Errorf("the copy within body_memory holds %d bytes, want the source's %d", len(got), len(small))
	}
	err := copyTo("big", "open/big")
	if errorCode(err) != "EntityTooLarge" || !loggedRefusal(log, "CopyObject") {
		t.Errorf("a copy of 20 MiB into a store that takes values whole, with body_memory = 16MiB: %v, want EntityTooLarge, logged naming body_memory\n%s", err, log)
	}
	wasNotWritten(t, sg, "big")

	// a multipart upload of parts within the budget, of a whole beyond it
	create, err := c.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: aws.String("cachedopen"), Key: aws.String("parts")})
	if err != nil {
		t.Fatal(err)
	}
	var done []types.CompletedPart
	for i, p := range [][]byte{big[:10<<20], big[10<<20:]} {
		out, err := c.UploadPart(ctx, &s3.UploadPartInput{Bucket: aws.String("cachedopen"), Key: aws.String("parts"), UploadId: create.UploadId,
			PartNumber: aws.Int32(int32(i + 1)), Body: bytes.NewReader(p)})
		if err != nil {
			t.Fatalf("UploadPart %d of 10 MiB: %v", i+1, err)
		}
		done = append(done, types.CompletedPart{PartNumber: aws.Int32(int32(i + 1)), ETag: out.ETag})
	}
	_, err = c.CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{Bucket: aws.String("cachedopen"), Key: aws.String("parts"),
		UploadId: create.UploadId, MultipartUpload: &types.CompletedMultipartUpload{Parts: done}})
	if errorCode(err) != "EntityTooLarge" || !loggedRefusal(log, "CompleteMultipartUpload") {
		t.Errorf("completing 20 MiB of parts into a store that takes values whole, with body_memory = 16MiB: %v, want EntityTooLarge, logged naming body_memory\n%s", err, log)
	}
	wasNotWritten(t, sg, "parts")
	// into the fs store the parts stream, and the same whole is made
	if got := completeCopiedParts(t, c, "open", "parts", "open/big", 10<<20); !bytes.Equal(got, big) {
		t.Errorf("the upload completed into the fs store holds %d bytes, want the %d of its parts", len(got), len(big))
	}
}

// completeCopiedParts makes key of bucket from the value src names, copied
// in parts of partSize (UploadPartCopy), and returns what it reads.
func completeCopiedParts(t *testing.T, c *s3.Client, bucket, key, src string, partSize int64) []byte {
	t.Helper()
	ctx := context.Background()
	head, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(strings.Split(src, "/")[0]), Key: aws.String(strings.SplitN(src, "/", 2)[1])})
	if err != nil {
		t.Fatal(err)
	}
	create, err := c.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: aws.String(bucket), Key: aws.String(key)})
	if err != nil {
		t.Fatal(err)
	}
	var done []types.CompletedPart
	for n, at := int32(1), int64(0); at < *head.ContentLength; n, at = n+1, at+partSize {
		last := min(at+partSize, *head.ContentLength) - 1
		out, err := c.UploadPartCopy(ctx, &s3.UploadPartCopyInput{Bucket: aws.String(bucket), Key: aws.String(key), UploadId: create.UploadId,
			PartNumber: aws.Int32(n), CopySource: aws.String(src), CopySourceRange: aws.String(rangeHeader(at, last))})
		if err != nil {
			t.Fatalf("UploadPartCopy %d: %v", n, err)
		}
		done = append(done, types.CompletedPart{PartNumber: aws.Int32(n), ETag: out.CopyPartResult.ETag})
	}
	if _, err := c.CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{Bucket: aws.String(bucket), Key: aws.String(key),
		UploadId: create.UploadId, MultipartUpload: &types.CompletedMultipartUpload{Parts: done}}); err != nil {
		t.Fatalf("CompleteMultipartUpload into %s: %v", bucket, err)
	}
	return getBytes(t, c, bucket, key, "")
}

func rangeHeader(first, last int64) string {
	return "bytes=" + strconv.FormatInt(first, 10) + "-" + strconv.FormatInt(last, 10)
}

// loggedRefusal reports whether the access log has a line of op refused
// for body_memory.
func loggedRefusal(log *syncBuffer, op string) bool {
	for _, line := range strings.Split(log.String(), "\n") {
		if strings.Contains(line, `"s3:`+op+`"`) && strings.Contains(line, "body_memory = 16MiB") {
			return true
		}
	}
	return false
}

// wasNotWritten fails the test unless dataset cachedopen has no key.
func wasNotWritten(t *testing.T, sg *s3Gateway, key string) {
	t.Helper()
	if resp, body := sg.keys.do(t, http.MethodGet, "/d/cachedopen/"+key, ""); resp.StatusCode != http.StatusNotFound {
		t.Errorf("GET of the refused %s: %d (%d bytes), want 404: nothing written", key, resp.StatusCode, len(body))
	}
}
