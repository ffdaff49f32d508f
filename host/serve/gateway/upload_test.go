package gateway_test

import (
	"bytes"
	"context"
	"crypto/md5"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/zarrgw/zarrgw/host/runtime/config"
)

// uploadConfig is a gateway whose whole budget of bodies is smaller than
// the bodies sent below: dataset "files" on the fs store, and "cached"
// on the same store behind the cache transformer, which takes values
// whole.
const uploadConfig = `
store "fs" "local" {
  root = "ROOT"
}
dataset "files" {
  store  = store.fs.local
  prefix = "files"
  access {
    read  = ["*"]
    write = ["*"]
  }
}
dataset "cached" {
  store  = store.fs.local
  prefix = "cached"
  transformer "cache" {
  }
  access {
    read  = ["*"]
    write = ["*"]
  }
}
server {
  listen           = "127.0.0.1:0"
  max_request_size = "64MiB"
  body_memory      = "16MiB"
}
`

// A body larger than the whole budget of bodies streams into a store of
// files (one set_stream call, the value read back whole), and is refused
// with 413 naming body_memory where the store takes values whole.
func TestLargeBodiesStreamIntoFiles(t *testing.T) {
	tg := newGatewayOf(t, uploadConfig)
	big := bytes.Repeat([]byte("0123456789abcdef"), 40<<20/16)
	tg.rec.reset()
	if resp, body := tg.do(t, http.MethodPut, "/d/files/big", string(big)); resp.StatusCode != http.StatusNoContent {
		t.Fatalf("PUT of 40 MiB into files: %d %s", resp.StatusCode, body)
	}
	if !slices.Contains(tg.rec.snapshot(), "set_stream files/big") {
		t.Errorf("the store saw %q, want one set_stream", tg.rec.snapshot())
	}
	if _, body := tg.do(t, http.MethodGet, "/d/files/big", ""); body != string(big) {
		t.Errorf("read back %d bytes, want the %d written", len(body), len(big))
	}
	resp, body := tg.do(t, http.MethodPut, "/d/cached/big", string(big))
	if resp.StatusCode != http.StatusRequestEntityTooLarge || !strings.Contains(body, "body_memory") {
		t.Errorf("PUT of 40 MiB behind the cache: %d %s, want 413 naming body_memory", resp.StatusCode, body)
	}
	if _, err := os.Stat(filepath.Join(tg.root, "cached", "big")); !os.IsNotExist(err) {
		t.Errorf("the refused value is in the store: %v", err)
	}
	// small bodies are stored as they always were, with one Set
	tg.rec.reset()
	tg.put(t, "/d/files/small", "small")
	if !slices.Contains(tg.rec.snapshot(), "set files/small") {
		t.Errorf("the store saw %q, want one set", tg.rec.snapshot())
	}
}

// A conditional write the store would refuse is refused before its body
// is read: a client that asks for 100 Continue never sends it, and is
// told at once.
func TestRefusedWritesReadNoBody(t *testing.T) {
	tg := newGatewayOf(t, uploadConfig)
	tg.put(t, "/d/files/k", "old")
	client := &http.Client{Transport: &http.Transport{ExpectContinueTimeout: 30 * time.Second}, Timeout: 5 * time.Minute}
	for _, h := range []string{`If-Match: "not-its-etag"`, "If-None-Match: *"} {
		var sent atomic.Int64
		body := &countingReader{r: bytes.NewReader(make([]byte, 4<<20)), n: &sent}
		req, err := http.NewRequest(http.MethodPut, tg.URL+"/d/files/k", body)
		if err != nil {
			t.Fatal(err)
		}
		name, value, _ := strings.Cut(h, ": ")
		req.Header.Set(name, value)
		req.Header.Set("Expect", "100-continue")
		resp, err := client.Do(req)
		if err != nil {
			t.Fatalf("%s: %v", h, err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusPreconditionFailed || sent.Load() != 0 {
			t.Errorf("%s: %d, and the client sent %d bytes; want 412 and none sent", h, resp.StatusCode, sent.Load())
		}
	}
	if _, body := tg.do(t, http.MethodGet, "/d/files/k", ""); body != "old" {
		t.Errorf("the key holds %q, want \"old\"", body)
	}
}

type countingReader struct {
	r io.Reader
	n *atomic.Int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	return n, err
}

// A streamed PutObject whose body fails a check at its end (its payload
// hash, a checksum header, Content-MD5) is answered with S3's code for
// it, and nothing is stored; one that passes them is stored whole.
func TestS3StreamedBodiesChecked(t *testing.T) {
	sg := newS3Gateway(t, s3Options{})
	big := strings.Repeat("streamed", 3<<20/8) // more than is read before streaming
	sum := md5.Sum([]byte(big))
	sha := sha256.Sum256([]byte(big))
	wrongSHA := sha256.Sum256([]byte("other"))
	cases := []struct {
		name   string
		req    signedRequest
		status int
		code   string
	}{
		{"payload hash", signedRequest{payloadHash: hex.EncodeToString(wrongSHA[:])}, 400, "XAmzContentSHA256Mismatch"},
		{"checksum header", signedRequest{payloadHash: "UNSIGNED-PAYLOAD",
			headers: map[string]string{"X-Amz-Checksum-Crc32": "AAAAAA=="}}, 400, "BadDigest"},
		{"Content-MD5", signedRequest{payloadHash: hex.EncodeToString(sha[:]),
			headers: map[string]string{"Content-Md5": "AAAAAAAAAAAAAAAAAAAAAA=="}}, 400, "BadDigest"},
		{"all good", signedRequest{headers: map[string]string{"Content-Md5": base64.StdEncoding.EncodeToString(sum[:])}}, 200, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			key := strings.ReplaceAll(c.name, " ", "-")
			c.req.method, c.req.path, c.req.body = http.MethodPut, "/open/"+key, big
			sg.rec.reset()
			resp, body := sg.send(t, c.req)
			if resp.StatusCode != c.status || s3Code(resp, body) != c.code {
				t.Fatalf("%d %s, want %d %s: %.300s", resp.StatusCode, s3Code(resp, body), c.status, c.code, body)
			}
			if !slices.Contains(sg.rec.snapshot(), "set_stream open/"+key) {
				t.Errorf("the store saw %q, want a set_stream", sg.rec.snapshot())
			}
			stored, err := os.ReadFile(filepath.Join(sg.root, "open", key))
			switch {
			case c.status == 200 && string(stored) != big:
				t.Errorf("stored %d bytes (%v), want the %d sent", len(stored), err, len(big))
			case c.status != 200 && !os.IsNotExist(err):
				t.Errorf("a body that failed its check was stored (%d bytes, %v)", len(stored), err)
			}
		})
	}
}

// A multipart upload completes into a store of files by streaming its
// parts (one set_stream, no part held in memory) and, behind the cache
// transformer, by joining them in memory: both make the parts in order.
// A part that cannot be read fails the completion, and nothing is stored.
func TestS3CompleteStreamsIntoFiles(t *testing.T) {
	cached := cachedOpenDataset(t)
	sg := newS3Gateway(t, s3Options{edit: func(cfg *config.Config) { cfg.Datasets = append(cfg.Datasets, cached) }})
	c := sg.writer()
	ctx := context.Background()
	parts := [][]byte{bytes.Repeat([]byte("a"), 5<<20), bytes.Repeat([]byte("b"), 5<<20), []byte("c")}
	stage := func(bucket, key string) (*string, []types.CompletedPart) {
		create, err := c.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: aws.String(bucket), Key: aws.String(key)})
		if err != nil {
			t.Fatal(err)
		}
		var done []types.CompletedPart
		for i, p := range parts {
			out, err := c.UploadPart(ctx, &s3.UploadPartInput{Bucket: aws.String(bucket), Key: aws.String(key), UploadId: create.UploadId,
				PartNumber: aws.Int32(int32(i + 1)), Body: bytes.NewReader(p)})
			if err != nil {
				t.Fatalf("%s: UploadPart %d: %v", bucket, i+1, err)
			}
			done = append(done, types.CompletedPart{PartNumber: aws.Int32(int32(i + 1)), ETag: out.ETag})
		}
		return create.UploadId, done
	}
	complete := func(bucket, key string, id *string, done []types.CompletedPart) error {
		_, err := c.CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{Bucket: aws.String(bucket), Key: aws.String(key), UploadId: id,
			MultipartUpload: &types.CompletedMultipartUpload{Parts: done}})
		return err
	}
	for _, bucket := range []string{"open", "cachedopen"} {
		id, done := stage(bucket, "obj")
		sg.rec.reset()
		if err := complete(bucket, "obj", id, done); err != nil {
			t.Fatalf("%s: Complete: %v", bucket, err)
		}
		if got := getBytes(t, c, bucket, "obj", ""); !bytes.Equal(got, bytes.Join(parts, nil)) {
			t.Errorf("%s: the completed object is not its parts in order", bucket)
		}
		if streamed := slices.Contains(sg.rec.snapshot(), "set_stream "+bucket+"/obj"); streamed != (bucket == "open") {
			t.Errorf("%s: the store saw %q", bucket, sg.rec.snapshot())
		}
	}
	// a part that cannot be read half way fails the completion, and
	// nothing is stored
	id, done := stage("open", "failed")
	sg.rec.fail = "/p00002-"
	if err := complete("open", "failed", id, done); err == nil {
		t.Fatal("Complete with a part that cannot be read: no error")
	}
	sg.rec.fail = ""
	if _, err := os.Stat(filepath.Join(sg.root, "open", "failed")); !os.IsNotExist(err) {
		t.Errorf("a completion that failed stored the value: %v", err)
	}
	if err := complete("open", "failed", id, done); err != nil {
		t.Errorf("Complete again once the part can be read: %v", err)
	}
}

// A write through the array API reserves what its stream holds (its
// slabs, its chunks in flight) from the budget of bodies before it reads
// anything: one whose chunk alone is larger than the whole budget is
// refused with 413 naming body_memory, and nothing is written.
func TestSliceWritesBudgeted(t *testing.T) {
	tg := newGatewayOf(t, uploadConfig)
	meta := `{"zarr_format":3,"node_type":"array","shape":[4096,4096],"data_type":"float64",
		"chunk_grid":{"name":"regular","configuration":{"chunk_shape":[4096,4096]}},"chunk_key_encoding":{"name":"default"},
		"fill_value":0,"codecs":[{"name":"bytes","configuration":{"endian":"little"}}],"attributes":{}}`
	tg.put(t, "/d/files/a/zarr.json", meta)
	resp, body := tg.do(t, http.MethodPut, "/d/files/a?format=raw&slice=0:1,0:2", "0123456789abcdef")
	if resp.StatusCode != http.StatusRequestEntityTooLarge || !strings.Contains(body, "body_memory") {
		t.Errorf("a write whose 128 MiB chunk exceeds a 16 MiB budget: %d %s, want 413 naming body_memory", resp.StatusCode, body)
	}
	if _, err := os.Stat(filepath.Join(tg.root, "files", "a", "c")); !os.IsNotExist(err) {
		t.Errorf("the refused write wrote chunks: %v", err)
	}
	// Sharded, the inner chunks are small but a write builds its whole
	// shard (128 MiB here): the estimate counts the shard, not the inner
	// chunk a read would decode.
	sharded := `{"zarr_format":3,"node_type":"array","shape":[4096,4096],"data_type":"float64",
		"chunk_grid":{"name":"regular","configuration":{"chunk_shape":[4096,4096]}},"chunk_key_encoding":{"name":"default"},
		"fill_value":0,"codecs":[{"name":"sharding_indexed","configuration":{"chunk_shape":[64,64],
		"codecs":[{"name":"bytes","configuration":{"endian":"little"}}],
		"index_codecs":[{"name":"bytes","configuration":{"endian":"little"}}]}}],"attributes":{}}`
	tg.put(t, "/d/files/s/zarr.json", sharded)
	resp, body = tg.do(t, http.MethodPut, "/d/files/s?format=raw&slice=0:1,0:2", "0123456789abcdef")
	if resp.StatusCode != http.StatusRequestEntityTooLarge || !strings.Contains(body, "body_memory") {
		t.Errorf("a write whose 128 MiB shard exceeds a 16 MiB budget: %d %s, want 413 naming body_memory", resp.StatusCode, body)
	}
	if _, err := os.Stat(filepath.Join(tg.root, "files", "s", "c")); !os.IsNotExist(err) {
		t.Errorf("the refused sharded write wrote chunks: %v", err)
	}
}

// An upload streamed into a store waits on its client, so it takes none
// of the places of store_concurrency that reads need: with one place, a
// GET is answered while an upload is stalled half way.
func TestStalledUploadLeavesReadsTheirPlace(t *testing.T) {
	tg := newGatewayOf(t, strings.Replace(uploadConfig, `body_memory      = "16MiB"`, "store_concurrency = 1", 1))
	tg.put(t, "/d/files/small", "small")
	pr, pw := io.Pipe()
	req, err := http.NewRequest(http.MethodPut, tg.URL+"/d/files/slow", pr)
	if err != nil {
		t.Fatal(err)
	}
	put := make(chan int, 1)
	go func() {
		resp, err := tg.Client().Do(req)
		if err != nil {
			put <- 0
			return
		}
		resp.Body.Close()
		put <- resp.StatusCode
	}()
	half := bytes.Repeat([]byte("x"), 3<<20) // past what is read before streaming
	if _, err := pw.Write(half); err != nil {
		t.Fatal(err)
	}
	for !slices.Contains(tg.rec.snapshot(), "set_stream files/slow") {
		time.Sleep(time.Millisecond) // until the upload holds its place in the store
	}
	client := &http.Client{Timeout: time.Minute} // a read blocked behind the upload would wait for ever
	resp, err := client.Get(tg.URL + "/d/files/small")
	if err != nil {
		t.Fatalf("GET while an upload is stalled: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("GET while an upload is stalled: %d", resp.StatusCode)
	}
	pw.Write(half)
	pw.Close()
	if status := <-put; status != http.StatusNoContent {
		t.Errorf("the stalled upload, once finished: %d", status)
	}
	if _, body := tg.do(t, http.MethodGet, "/d/files/slow", ""); len(body) != 2*len(half) {
		t.Errorf("read back %d bytes, want %d", len(body), 2*len(half))
	}
}

// snapshot is a copy of the calls recorded so far.
func (r *recorder) snapshot() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.calls)
}
