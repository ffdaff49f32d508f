package security

import (
	"context"
	"encoding/xml"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/zarrgw/zarrgw/tests/support/servers"
)

// Copies and completed multipart uploads into a dataset on an S3 bucket
// (versitygw), a store that takes values whole, build each value in
// memory: that memory comes from the one budget of request bodies
// (body_memory), so 12 and then 50 parallel CopyObject of a 200 MB value
// keep the gateway's peak RSS under the budget and 200 MB, those that
// find no room are refused with 503 and Retry-After, a small GET is
// answered all along, and every copy made reads back byte for byte.
func TestUploadS3CopyFlood(t *testing.T) {
	srv := startS3Store(t)
	for _, n := range []int{12, 50} {
		t.Run(strconv.Itoa(n), func(t *testing.T) {
			s, api := startS3Face(t, srv)
			uploadPut(t, s.url+"/d/bucket/small", "small")
			putSource(t, s)
			f := runUploadFlood(t, s, "/d/bucket/small", n, func(i int) *http.Request {
				req := s3Request(http.MethodPut, api+"/bucket/copy/"+strconv.Itoa(i), "")
				req.Header.Set("X-Amz-Copy-Source", "bucket/source")
				return req
			})
			f.check(t, http.StatusOK, http.StatusServiceUnavailable)
			checkMade(t, s, f, "copy/", n)
		})
	}
}

// Completing 12 multipart uploads at once, each of two 100 MB parts
// staged in the bucket (UploadPartCopy), into the same dataset: each
// completion joins its parts in memory from body_memory, with the same
// bound on the peak RSS, 503 with Retry-After for those that find no
// room, and every value made read back byte for byte.
func TestUploadS3CompleteFlood(t *testing.T) {
	const n = 12
	s, api := startS3Face(t, startS3Store(t))
	uploadPut(t, s.url+"/d/bucket/small", "small")
	putSource(t, s)
	docs := make([]string, n)
	ids := make([]string, n)
	for i := range n {
		ids[i], docs[i] = stageCopiedUpload(t, api, "made/"+strconv.Itoa(i))
	}
	f := runUploadFlood(t, s, "/d/bucket/small", n, func(i int) *http.Request {
		return s3Request(http.MethodPost, api+"/bucket/made/"+strconv.Itoa(i)+"?uploadId="+ids[i], docs[i])
	})
	f.check(t, http.StatusOK, http.StatusServiceUnavailable)
	checkMade(t, s, f, "made/", n)
}

// startS3Store starts versitygw, whose credentials and endpoint the
// gateways started after inherit.
func startS3Store(t *testing.T) *servers.S3 {
	t.Helper()
	srv := servers.StartS3(t)
	for k, v := range map[string]string{"AWS_ENDPOINT_URL": srv.Endpoint, "AWS_ACCESS_KEY_ID": srv.AccessKey,
		"AWS_SECRET_ACCESS_KEY": srv.SecretKey, "AWS_REGION": srv.Region, "AWS_CA_BUNDLE": ""} {
		t.Setenv(k, v)
	}
	return srv
}

// startS3Face serves a dataset "bucket" over a new bucket of srv (a store
// that takes values whole), which anyone reads and writes, with the S3
// API on a port of its own, and returns the server and that API's URL.
func startS3Face(t *testing.T, srv *servers.S3) (*server, string) {
	t.Helper()
	src := fmt.Sprintf(`store "s3" "remote" {
  bucket = %q
}
dataset "bucket" {
  store = store.s3.remote
  access {
    read  = ["*"]
    write = ["*"]
  }
}
server {
  listen = "127.0.0.1:0"
  s3 {
    listen = "127.0.0.1:0"
  }
}
`, srv.NewBucket(t))
	config := filepath.Join(t.TempDir(), "zarrgw.hcl")
	if err := os.WriteFile(config, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	s := startServer(t, config)
	return s, s3Address(t, s)
}

var s3Line = regexp.MustCompile(`zarrgw: S3 API at (http://[0-9.:]+) `)

// s3Address waits for the server's log to name its S3 API's address (the
// line after the one startServer waits for), bounded against a hang.
func s3Address(t *testing.T, s *server) string {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		if m := s3Line.FindStringSubmatch(s.log.String()); m != nil {
			return m[1]
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("zarrgw serve named no S3 API address within a minute; its log:\n%s", s.log)
	return ""
}

// putSource writes upload 0's body as the key "source" of dataset bucket.
func putSource(t *testing.T, s *server) {
	t.Helper()
	resp, err := http.DefaultClient.Do(uploadRequest(s.url+"/d/bucket/source", 0))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		t.Fatalf("PUT of the %d MB source: %s %s", uploadSize>>20, resp.Status, body)
	}
}

// s3Request is an anonymous request of the S3 API (anyone writes the
// dataset), with body as its document.
func s3Request(method, url, body string) *http.Request {
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		panic(err)
	}
	return req
}

// s3Call sends an anonymous request of the S3 API, which must succeed,
// and decodes its XML answer into out.
func s3Call(t *testing.T, req *http.Request, out any) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	resp, err := http.DefaultClient.Do(req.WithContext(ctx))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("%s %s: %s %s", req.Method, req.URL, resp.Status, body)
	}
	if err := xml.Unmarshal(body, out); err != nil {
		t.Fatalf("%s %s: %v in %s", req.Method, req.URL, err, body)
	}
}

// stageCopiedUpload begins a multipart upload of key, copies the source
// into it in two parts, and returns the upload's ID and the document
// that completes it.
func stageCopiedUpload(t *testing.T, api, key string) (string, string) {
	t.Helper()
	var created struct{ UploadId string }
	s3Call(t, s3Request(http.MethodPost, api+"/bucket/"+key+"?uploads", ""), &created)
	doc := "<CompleteMultipartUpload>"
	const half = uploadSize / 2
	for n := 1; n <= 2; n++ {
		req := s3Request(http.MethodPut, fmt.Sprintf("%s/bucket/%s?partNumber=%d&uploadId=%s", api, key, n, created.UploadId), "")
		req.Header.Set("X-Amz-Copy-Source", "bucket/source")
		req.Header.Set("X-Amz-Copy-Source-Range", fmt.Sprintf("bytes=%d-%d", (n-1)*half, n*half-1))
		var part struct{ ETag string }
		s3Call(t, req, &part)
		doc += fmt.Sprintf("<Part><PartNumber>%d</PartNumber><ETag>%s</ETag></Part>", n, part.ETag)
	}
	return created.UploadId, doc + "</CompleteMultipartUpload>"
}

// checkMade reads back the keys prefix+i of dataset bucket: as many must
// exist as the flood was answered 200, each upload 0's body (the source)
// byte for byte; none may exist for a refused request.
func checkMade(t *testing.T, s *server, f *uploadFlood, prefix string, n int) {
	t.Helper()
	made := 0
	for i := range n {
		url := s.url + "/d/bucket/" + prefix + strconv.Itoa(i)
		resp, err := http.Head(url)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode == http.StatusNotFound {
			continue
		}
		made++
		if err := uploadSameAs(url, uploadPayload(0)); err != nil {
			t.Errorf("%s%d: %v", prefix, i, err)
		}
	}
	if ok := f.count(http.StatusOK); made != ok || made == 0 {
		t.Errorf("%d values made, %d requests answered 200: want as many, and at least one", made, ok)
	}
	t.Logf("%d values made, read back byte for byte", made)
}
