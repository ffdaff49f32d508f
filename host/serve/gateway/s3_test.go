package gateway_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/md5"
	"crypto/rand"
	"crypto/tls"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go"
)

func randomBytes(t *testing.T, n int) []byte {
	t.Helper()
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return b
}

// errorCode is the S3 error code of an SDK error ("" for none).
func errorCode(err error) string {
	var ae smithy.APIError
	if errors.As(err, &ae) {
		return ae.ErrorCode()
	}
	return ""
}

func getBytes(t *testing.T, c *s3.Client, bucket, key string, rng string) []byte {
	t.Helper()
	in := &s3.GetObjectInput{Bucket: &bucket, Key: &key}
	if rng != "" {
		in.Range = &rng
	}
	out, err := c.GetObject(context.Background(), in)
	if err != nil {
		t.Fatalf("GetObject %s/%s %s: %v", bucket, key, rng, err)
	}
	defer out.Body.Close()
	b, err := io.ReadAll(out.Body)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func putBytes(t *testing.T, c *s3.Client, bucket, key string, data []byte) *s3.PutObjectOutput {
	t.Helper()
	out, err := c.PutObject(context.Background(), &s3.PutObjectInput{Bucket: &bucket, Key: &key, Body: bytes.NewReader(data)})
	if err != nil {
		t.Fatalf("PutObject %s/%s: %v", bucket, key, err)
	}
	return out
}

// The SDK's defaults (checksum trailers over aws-chunked bodies) write
// values that read back byte-identical through the S3 API and the key
// API; ranges, HEAD and conditional requests answer as S3 does.
func TestS3ObjectsThroughSDK(t *testing.T) {
	sg := newS3Gateway(t, s3Options{})
	c := sg.writer()
	ctx := context.Background()
	data := randomBytes(t, 1<<20+17)
	put := putBytes(t, c, "private", "data/x.bin", data)
	if put.ETag == nil || *put.ETag == "" {
		t.Fatal("PutObject answered no ETag")
	}
	// a body the SDK cannot seek goes as aws-chunked with a checksum trailer
	streamed := randomBytes(t, 3<<20+5)
	_, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("private"), Key: aws.String("data/streamed"),
		Body: struct{ io.Reader }{bytes.NewReader(streamed)}, ContentLength: aws.Int64(int64(len(streamed)))})
	if err != nil {
		t.Fatalf("PutObject of an unseekable body: %v", err)
	}
	if got := getBytes(t, c, "private", "data/streamed", ""); !bytes.Equal(got, streamed) {
		t.Fatal("the aws-chunked upload reads back different")
	}
	if !sg.payloadSeen("STREAMING-UNSIGNED-PAYLOAD-TRAILER") {
		t.Fatalf("the SDK sent no checksum trailer (payload forms seen: %v): the test no longer covers aws-chunked bodies", sg.payloads)
	}
	if got := getBytes(t, c, "private", "data/x.bin", ""); !bytes.Equal(got, data) {
		t.Fatal("GetObject returned other bytes than were put")
	}
	onDisk, err := os.ReadFile(filepath.Join(sg.root, "private", "data", "x.bin"))
	if err != nil || !bytes.Equal(onDisk, data) {
		t.Fatalf("stored value differs from what was put (err %v): checksum trailers stored as data?", err)
	}
	for rng, want := range map[string][]byte{
		"bytes=10-19": data[10:20], "bytes=-5": data[len(data)-5:], "bytes=1048570-": data[1048570:],
	} {
		if got := getBytes(t, c, "private", "data/x.bin", rng); !bytes.Equal(got, want) {
			t.Errorf("Range %s: %d bytes, want %d", rng, len(got), len(want))
		}
	}
	_, err = c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("private"), Key: aws.String("data/x.bin"), Range: aws.String("bytes=9999999-")})
	if errorCode(err) != "InvalidRange" {
		t.Errorf("unsatisfiable range: %v, want InvalidRange", err)
	}
	head, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String("private"), Key: aws.String("data/x.bin")})
	if err != nil || *head.ContentLength != int64(len(data)) || *head.ETag != *put.ETag || head.LastModified == nil {
		t.Fatalf("HeadObject: %+v, %v", head, err)
	}
	got, err := c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("private"), Key: aws.String("data/x.bin")})
	if err != nil || got.LastModified == nil || !got.LastModified.Equal(*head.LastModified) || *got.ETag != *head.ETag {
		t.Fatalf("GetObject's Last-Modified and ETag differ from HeadObject's: %+v %v", got, err)
	}
	got.Body.Close()
	_, err = c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("private"), Key: aws.String("data/x.bin"), IfNoneMatch: put.ETag})
	var re interface{ HTTPStatusCode() int }
	if !errors.As(err, &re) || re.HTTPStatusCode() != http.StatusNotModified {
		t.Errorf("GET If-None-Match with the ETag: %v, want 304", err)
	}
	_, err = c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String("private"), Key: aws.String("missing")})
	var nf *types.NotFound
	if !errors.As(err, &nf) {
		t.Errorf("HeadObject of a missing key: %v, want NotFound", err)
	}
	_, err = c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("private"), Key: aws.String("missing")})
	if errorCode(err) != "NoSuchKey" {
		t.Errorf("GetObject of a missing key: %v, want NoSuchKey", err)
	}
	resp, body := sg.keys.do(t, http.MethodGet, "/d/private/data/x.bin", "", "Authorization: Bearer "+writerToken)
	if resp.StatusCode != http.StatusOK || body != string(data) {
		t.Errorf("key API read of an S3 upload: %d, %d bytes", resp.StatusCode, len(body))
	}
}

// If-None-Match: * and If-Match map onto the store's conditional write.
func TestS3ConditionalPut(t *testing.T) {
	sg := newS3Gateway(t, s3Options{})
	c := sg.writer()
	ctx := context.Background()
	first := putBytes(t, c, "open", "k", []byte("one"))
	_, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("open"), Key: aws.String("k"), Body: strings.NewReader("two"), IfNoneMatch: aws.String("*")})
	if errorCode(err) != "PreconditionFailed" {
		t.Fatalf("If-None-Match: * over an existing key: %v, want PreconditionFailed", err)
	}
	second, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("open"), Key: aws.String("k"), Body: strings.NewReader("two"), IfMatch: first.ETag})
	if err != nil {
		t.Fatalf("If-Match with the current ETag: %v", err)
	}
	_, err = c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("open"), Key: aws.String("k"), Body: strings.NewReader("three"), IfMatch: first.ETag})
	if errorCode(err) != "PreconditionFailed" {
		t.Fatalf("If-Match with a stale ETag: %v, want PreconditionFailed", err)
	}
	if got := getBytes(t, c, "open", "k", ""); string(got) != "two" || *second.ETag == *first.ETag {
		t.Fatalf("after the conditional puts the value is %q", got)
	}
	if _, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("open"), Key: aws.String("new"), Body: strings.NewReader("x"), IfNoneMatch: aws.String("*")}); err != nil {
		t.Fatalf("If-None-Match: * on a new key: %v", err)
	}
}

// CopyObject within and across datasets; DeleteObjects with its report.
func TestS3CopyAndDeleteObjects(t *testing.T) {
	sg := newS3Gateway(t, s3Options{})
	c := sg.writer()
	ctx := context.Background()
	putBytes(t, c, "open", "src/a", []byte("alpha"))
	for _, dst := range []string{"open", "private"} {
		out, err := c.CopyObject(ctx, &s3.CopyObjectInput{Bucket: aws.String(dst), Key: aws.String("copies/a"), CopySource: aws.String("open/src/a")})
		if err != nil || out.CopyObjectResult == nil || out.CopyObjectResult.ETag == nil {
			t.Fatalf("CopyObject to %s: %+v %v", dst, out, err)
		}
		if got := getBytes(t, c, dst, "copies/a", ""); string(got) != "alpha" {
			t.Fatalf("copy in %s holds %q", dst, got)
		}
	}
	_, err := c.CopyObject(ctx, &s3.CopyObjectInput{Bucket: aws.String("open"), Key: aws.String("src/a"), CopySource: aws.String("open/src/a")})
	if errorCode(err) != "InvalidRequest" {
		t.Errorf("copy onto itself: %v, want InvalidRequest", err)
	}
	_, err = c.CopyObject(ctx, &s3.CopyObjectInput{Bucket: aws.String("open"), Key: aws.String("c2"), CopySource: aws.String("open/src/a"), CopySourceIfMatch: aws.String(`"nope"`)})
	if errorCode(err) != "PreconditionFailed" {
		t.Errorf("copy with a failing x-amz-copy-source-if-match: %v", err)
	}
	reader := sg.client(readerKeyID, readerSecret)
	_, err = reader.CopyObject(ctx, &s3.CopyObjectInput{Bucket: aws.String("private"), Key: aws.String("c3"), CopySource: aws.String("open/src/a")})
	if errorCode(err) != "AccessDenied" {
		t.Errorf("copy into a dataset the principal may not write: %v", err)
	}
	for _, k := range []string{"d/1", "d/2", "d/3"} {
		putBytes(t, c, "open", k, []byte(k))
	}
	out, err := c.DeleteObjects(ctx, &s3.DeleteObjectsInput{Bucket: aws.String("open"), Delete: &types.Delete{Objects: []types.ObjectIdentifier{
		{Key: aws.String("d/1")}, {Key: aws.String("d/2")}, {Key: aws.String("d/../x")}, {Key: aws.String("d/never")},
	}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Deleted) != 3 || len(out.Errors) != 1 || *out.Errors[0].Key != "d/../x" || *out.Errors[0].Code != "InvalidArgument" {
		t.Fatalf("DeleteObjects: %d deleted, errors %+v", len(out.Deleted), out.Errors)
	}
	list, err := c.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: aws.String("open"), Prefix: aws.String("d/")})
	if err != nil || len(list.Contents) != 1 || *list.Contents[0].Key != "d/3" {
		t.Fatalf("after DeleteObjects: %+v %v", list, err)
	}
}

// A multipart upload: parts staged out of order and one uploaded twice,
// listed, invisible to listings, assembled by Complete and then gone.
func TestS3Multipart(t *testing.T) {
	sg := newS3Gateway(t, s3Options{})
	c := sg.writer()
	ctx := context.Background()
	create, err := c.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: aws.String("open"), Key: aws.String("big/obj")})
	if err != nil {
		t.Fatal(err)
	}
	parts := [][]byte{randomBytes(t, 5<<20), randomBytes(t, 5<<20), randomBytes(t, 123)}
	upload := func(n int, data []byte) *string {
		out, err := c.UploadPart(ctx, &s3.UploadPartInput{Bucket: aws.String("open"), Key: aws.String("big/obj"), UploadId: create.UploadId,
			PartNumber: aws.Int32(int32(n)), Body: bytes.NewReader(data)})
		if err != nil {
			t.Fatalf("UploadPart %d: %v", n, err)
		}
		sum := md5.Sum(data)
		if *out.ETag != `"`+hex.EncodeToString(sum[:])+`"` {
			t.Fatalf("part %d: ETag %s is not the part's MD5", n, *out.ETag)
		}
		return out.ETag
	}
	upload(2, randomBytes(t, 5<<20)) // replaced below
	t3 := upload(3, parts[2])
	t1 := upload(1, parts[0])
	tags := []*string{t1, upload(2, parts[1]), t3}
	staged, _ := filepath.Glob(filepath.Join(sg.root, "open", ".zarrgw_multipart", *create.UploadId, "p*"))
	if len(staged) != 3 {
		t.Fatalf("staged after part 2 was uploaded again: %v, want one file per part", staged)
	}
	lp, err := c.ListParts(ctx, &s3.ListPartsInput{Bucket: aws.String("open"), Key: aws.String("big/obj"), UploadId: create.UploadId})
	if err != nil || len(lp.Parts) != 3 || *lp.Parts[1].ETag != *tags[1] {
		t.Fatalf("ListParts: %+v %v", lp, err)
	}
	lu, err := c.ListMultipartUploads(ctx, &s3.ListMultipartUploadsInput{Bucket: aws.String("open")})
	if err != nil || len(lu.Uploads) != 1 || *lu.Uploads[0].UploadId != *create.UploadId {
		t.Fatalf("ListMultipartUploads: %+v %v", lu, err)
	}
	list, err := c.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: aws.String("open")})
	if err != nil || len(list.Contents) != 0 || len(list.CommonPrefixes) != 0 {
		t.Fatalf("staged parts show in a listing: %+v %v", list, err)
	}
	var done []types.CompletedPart
	for i, tag := range tags {
		done = append(done, types.CompletedPart{PartNumber: aws.Int32(int32(i + 1)), ETag: tag})
	}
	_, err = c.CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{Bucket: aws.String("open"), Key: aws.String("big/obj"), UploadId: create.UploadId,
		MultipartUpload: &types.CompletedMultipartUpload{Parts: []types.CompletedPart{done[1], done[0]}}})
	if errorCode(err) != "InvalidPartOrder" {
		t.Fatalf("Complete with parts out of order: %v", err)
	}
	if _, err = c.CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{Bucket: aws.String("open"), Key: aws.String("big/obj"), UploadId: create.UploadId,
		MultipartUpload: &types.CompletedMultipartUpload{Parts: done}}); err != nil {
		t.Fatal(err)
	}
	if got := getBytes(t, c, "open", "big/obj", ""); !bytes.Equal(got, bytes.Join(parts, nil)) {
		t.Fatal("the completed object is not its parts in order")
	}
	if _, err := os.Stat(filepath.Join(sg.root, "open", ".zarrgw_multipart", *create.UploadId)); !os.IsNotExist(err) {
		t.Fatalf("the staged parts outlived Complete: %v", err)
	}
	_, err = c.UploadPart(ctx, &s3.UploadPartInput{Bucket: aws.String("open"), Key: aws.String("big/obj"), UploadId: create.UploadId,
		PartNumber: aws.Int32(1), Body: strings.NewReader("late")})
	if errorCode(err) != "NoSuchUpload" {
		t.Fatalf("UploadPart after Complete: %v, want NoSuchUpload", err)
	}
}

// Abort erases the staged parts; small parts but the last are refused.
func TestS3MultipartAbortAndSmallParts(t *testing.T) {
	sg := newS3Gateway(t, s3Options{})
	c := sg.writer()
	ctx := context.Background()
	create, err := c.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: aws.String("open"), Key: aws.String("o")})
	if err != nil {
		t.Fatal(err)
	}
	var done []types.CompletedPart
	for n := 1; n <= 2; n++ {
		out, err := c.UploadPart(ctx, &s3.UploadPartInput{Bucket: aws.String("open"), Key: aws.String("o"), UploadId: create.UploadId,
			PartNumber: aws.Int32(int32(n)), Body: strings.NewReader("small")})
		if err != nil {
			t.Fatal(err)
		}
		done = append(done, types.CompletedPart{PartNumber: aws.Int32(int32(n)), ETag: out.ETag})
	}
	_, err = c.CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{Bucket: aws.String("open"), Key: aws.String("o"), UploadId: create.UploadId,
		MultipartUpload: &types.CompletedMultipartUpload{Parts: done}})
	if errorCode(err) != "EntityTooSmall" {
		t.Fatalf("Complete with a small first part: %v, want EntityTooSmall", err)
	}
	if _, err := c.AbortMultipartUpload(ctx, &s3.AbortMultipartUploadInput{Bucket: aws.String("open"), Key: aws.String("o"), UploadId: create.UploadId}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(sg.root, "open", ".zarrgw_multipart", *create.UploadId)); !os.IsNotExist(err) {
		t.Fatalf("Abort left the parts: %v", err)
	}
	if _, err := os.Stat(filepath.Join(sg.root, "open", "o")); !os.IsNotExist(err) {
		t.Fatal("an aborted upload made its key")
	}
}

// An upload left unfinished is erased once older than multipart_max_age.
// The test ages the upload itself (its record's time), so the janitor
// never races the test's own requests, however slow the machine.
func TestS3AbandonedUploadsErased(t *testing.T) {
	sg := newS3Gateway(t, s3Options{maxAge: "4s"}) // swept every second
	c := sg.writer()
	ctx := context.Background()
	create, err := c.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: aws.String("open"), Key: aws.String("o")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.UploadPart(ctx, &s3.UploadPartInput{Bucket: aws.String("open"), Key: aws.String("o"), UploadId: create.UploadId,
		PartNumber: aws.Int32(1), Body: strings.NewReader("abandoned")}); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(sg.root, "open", ".zarrgw_multipart", *create.UploadId)
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(filepath.Join(dir, "upload"), old, old); err != nil {
		t.Fatalf("no staged upload to abandon: %v", err)
	}
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if _, err := os.Stat(dir); os.IsNotExist(err) {
			return
		}
	}
	t.Fatal("an upload begun an hour ago is still staged a minute later (multipart_max_age 4s)")
}

// With buckets_from, CreateBucket makes a dataset that outlives a
// restart; DeleteBucket erases only empty buckets it made.
func TestS3BucketsFrom(t *testing.T) {
	sg := newS3Gateway(t, s3Options{})
	c := sg.writer()
	ctx := context.Background()
	if _, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String("scratch-1")}); err != nil {
		t.Fatal(err)
	}
	for bucket, want := range map[string]string{"scratch-1": "BucketAlreadyOwnedByYou", "open": "BucketAlreadyExists", "Bad_Name": "InvalidBucketName"} {
		if _, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(bucket)}); errorCode(err) != want {
			t.Errorf("CreateBucket %s: %v, want %s", bucket, err, want)
		}
	}
	reader := sg.client(readerKeyID, readerSecret)
	if _, err := reader.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String("scratch-2")}); errorCode(err) != "AccessDenied" {
		t.Errorf("CreateBucket by a principal outside bucket_access: %v", err)
	}
	putBytes(t, c, "scratch-1", "a/b", []byte("kept"))
	if _, err := c.DeleteBucket(ctx, &s3.DeleteBucketInput{Bucket: aws.String("scratch-1")}); errorCode(err) != "BucketNotEmpty" {
		t.Fatalf("DeleteBucket of a bucket holding a key: %v", err)
	}
	if _, err := c.DeleteBucket(ctx, &s3.DeleteBucketInput{Bucket: aws.String("open")}); errorCode(err) != "AccessDenied" {
		t.Fatalf("DeleteBucket of a declared dataset: %v", err)
	}
	again := newS3Gateway(t, s3Options{root: sg.root})
	c = again.writer()
	if got := getBytes(t, c, "scratch-1", "a/b", ""); string(got) != "kept" {
		t.Fatalf("after a restart the made bucket holds %q", got)
	}
	names := func() []string {
		out, err := c.ListBuckets(ctx, &s3.ListBucketsInput{})
		if err != nil {
			t.Fatal(err)
		}
		var n []string
		for _, b := range out.Buckets {
			n = append(n, *b.Name)
		}
		return n
	}
	if got := strings.Join(names(), " "); got != "cons frozen open private scratch-1" {
		t.Fatalf("ListBuckets: %s", got)
	}
	if _, err := c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String("scratch-1"), Key: aws.String("a/b")}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.DeleteBucket(ctx, &s3.DeleteBucketInput{Bucket: aws.String("scratch-1")}); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(names(), " "); got != "cons frozen open private" {
		t.Fatalf("ListBuckets after DeleteBucket: %s", got)
	}
	if _, err := c.HeadBucket(ctx, &s3.HeadBucketInput{Bucket: aws.String("scratch-1")}); err == nil {
		t.Fatal("a deleted bucket is still there")
	}
}

// A presigned GET works with any HTTP client, until it expires.
func TestS3Presigned(t *testing.T) {
	sg := newS3Gateway(t, s3Options{})
	c := sg.writer()
	putBytes(t, c, "private", "shared", []byte("for curl"))
	ps := s3.NewPresignClient(c)
	req, err := ps.PresignGetObject(context.Background(), &s3.GetObjectInput{Bucket: aws.String("private"), Key: aws.String("shared")},
		s3.WithPresignExpires(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := sg.s3.Client().Get(req.URL)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || string(b) != "for curl" {
		t.Fatalf("presigned GET: %d %q", resp.StatusCode, b)
	}
	resp, err = sg.s3.Client().Get(strings.Replace(req.URL, "shared", "other", 1))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Fatalf("presigned URL used for another key: %d", resp.StatusCode)
	}
}

// Keys ending in "/" (directory markers) are missing to reads, erased
// already, and refused to writes, never passed to a store.
func TestS3DirectoryMarkers(t *testing.T) {
	sg := newS3Gateway(t, s3Options{})
	c := sg.writer()
	ctx := context.Background()
	putBytes(t, c, "open", "dir/k", []byte("v"))
	sg.rec.reset()
	_, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String("open"), Key: aws.String("dir/")})
	var nf *types.NotFound
	if !errors.As(err, &nf) {
		t.Errorf("HEAD dir/: %v, want NotFound", err)
	}
	if _, err := c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String("open"), Key: aws.String("dir/")}); err != nil {
		t.Errorf("DELETE dir/: %v", err)
	}
	_, err = c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("open"), Key: aws.String("empty/"), Body: strings.NewReader("")})
	if errorCode(err) != "InvalidArgument" {
		t.Errorf("PUT empty/: %v, want InvalidArgument", err)
	}
	if n := sg.rec.reset(); n != 0 {
		t.Errorf("%d store calls for directory markers", n)
	}
	if got := getBytes(t, c, "open", "dir/k", ""); string(got) != "v" {
		t.Fatalf("the key below the marker: %q", got)
	}
}

// An empty body announced with Expect: 100-continue is answered 100
// Continue before the final response, as a body that is read would be, by
// both APIs: boto3 reads the final response in its place otherwise, and
// its next request on that connection waits out its read timeout.
func TestContinueOnEmptyBody(t *testing.T) {
	sg := newS3Gateway(t, s3Options{})
	s3conn, err := tls.Dial("tcp", sg.s3.Listener.Addr().String(), &tls.Config{InsecureSkipVerify: true})
	if err != nil {
		t.Fatal(err)
	}
	keysConn, err := net.Dial("tcp", sg.keys.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]struct {
		conn net.Conn
		path string
	}{"S3 API": {s3conn, "/data/empty"}, "key API": {keysConn, "/d/data/empty"}} {
		defer c.conn.Close()
		fmt.Fprintf(c.conn, "PUT %s HTTP/1.1\r\nHost: gw\r\nExpect: 100-continue\r\nContent-Length: 0\r\n\r\n", c.path)
		br := bufio.NewReader(c.conn)
		first, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if first.StatusCode != http.StatusContinue {
			t.Errorf("%s: the first answer to an empty PUT with Expect: 100-continue is %s, not 100 Continue", name, first.Status)
			continue
		}
		if final, err := http.ReadResponse(br, nil); err != nil || final.StatusCode < 200 {
			t.Errorf("%s: no final answer after the 100 Continue: %v %v", name, final, err)
		}
	}
}
