package security

import (
	"bytes"
	endian "encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zarrgw/zarrgw/tests/support/servers"
)

const (
	// uploadBudget is body_memory's default, which the configurations
	// below keep: the memory all request bodies may hold at once.
	uploadBudget = 512 << 20
	// uploadSize is each upload's body.
	uploadSize = 200 << 20
)

// uploadConfig serves a directory as dataset "up", and when bucket is not
// empty an S3 bucket as dataset "s3" (a store that takes values whole),
// both writable by anyone.
func uploadConfig(t *testing.T, bucket string) string {
	t.Helper()
	dir := t.TempDir()
	src := fmt.Sprintf(`store "fs" "local" {
  root        = %q
  create_root = true
}
dataset "up" {
  store = store.fs.local
  access {
    read  = ["*"]
    write = ["*"]
  }
}
`, filepath.Join(dir, "data"))
	if bucket != "" {
		src += fmt.Sprintf(`store "s3" "remote" {
  bucket = %q
}
dataset "s3" {
  store = store.s3.remote
  access {
    read  = ["*"]
    write = ["*"]
  }
}
`, bucket)
	}
	src += `server {
  listen = "127.0.0.1:0"
}
`
	config := filepath.Join(dir, "zarrgw.hcl")
	if err := os.WriteFile(config, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return config
}

// Uploads to a dataset on the fs store: 12, then 50, parallel PUTs of
// 200 MB, each with an If-Match that fails (refused with 412, their
// bodies never read), then each writing a key of its own (streamed into
// the store's files: every one written, and read back byte for byte).
// The gateway's peak RSS stays under the body budget and 200 MB, and a
// small GET is answered all along.
func TestUploadFloodFS(t *testing.T) {
	for _, n := range []int{12, 50} {
		t.Run(fmt.Sprintf("if-match/%d", n), func(t *testing.T) {
			ifMatchFlood(t, startServer(t, uploadConfig(t, "")), "up", n)
		})
		t.Run(fmt.Sprintf("writes/%d", n), func(t *testing.T) {
			s := startServer(t, uploadConfig(t, ""))
			uploadPut(t, s.url+"/d/up/small", "small")
			f := runUploadFlood(t, s, "/d/up/small", n, func(i int) *http.Request {
				return uploadRequest(s.url+"/d/up/w/"+strconv.Itoa(i), i)
			})
			f.check(t, http.StatusNoContent)
			f.readBack(t, s.url+"/d/up/w/")
		})
	}
}

// Uploads to a dataset on an S3 bucket (versitygw), a store that takes
// values whole: each body is read into memory within the body budget,
// and those that find no room are refused with 503 and Retry-After; the
// ones written read back byte for byte, and the peak RSS stays under the
// budget and 200 MB. A failing If-Match is refused before its body is
// read, here too.
func TestUploadFloodS3Store(t *testing.T) {
	srv := servers.StartS3(t)
	for k, v := range map[string]string{"AWS_ENDPOINT_URL": srv.Endpoint, "AWS_ACCESS_KEY_ID": srv.AccessKey,
		"AWS_SECRET_ACCESS_KEY": srv.SecretKey, "AWS_REGION": srv.Region, "AWS_CA_BUNDLE": ""} {
		t.Setenv(k, v) // the gateway inherits them
	}
	for _, n := range []int{12, 50} {
		t.Run(fmt.Sprintf("if-match/%d", n), func(t *testing.T) {
			ifMatchFlood(t, startServer(t, uploadConfig(t, srv.NewBucket(t))), "s3", n)
		})
		t.Run(fmt.Sprintf("writes/%d", n), func(t *testing.T) {
			s := startServer(t, uploadConfig(t, srv.NewBucket(t)))
			uploadPut(t, s.url+"/d/s3/small", "small")
			f := runUploadFlood(t, s, "/d/s3/small", n, func(i int) *http.Request {
				return uploadRequest(s.url+"/d/s3/w/"+strconv.Itoa(i), i)
			})
			f.check(t, http.StatusNoContent, http.StatusServiceUnavailable)
			if f.count(http.StatusNoContent) == 0 {
				t.Errorf("no upload was written: %v", f.statuses)
			}
			f.readBack(t, s.url+"/d/s3/w/")
		})
	}
}

// ifMatchFlood sends n uploads to a key of dataset, each with an If-Match
// that fails: each must be refused with 412 before its body is read, so
// that no client sends it (they ask for 100 Continue).
func ifMatchFlood(t *testing.T, s *server, dataset string, n int) {
	t.Helper()
	base := s.url + "/d/" + dataset + "/"
	uploadPut(t, base+"target", "the value an If-Match must name")
	uploadPut(t, base+"small", "small")
	f := runUploadFlood(t, s, "/d/"+dataset+"/small", n, func(i int) *http.Request {
		req := uploadRequest(base+"target", i)
		req.Header.Set("If-Match", `"not-its-etag"`)
		return req
	})
	f.check(t, http.StatusPreconditionFailed)
	if sent := f.sent.Load(); sent > 0 {
		t.Errorf("the clients sent %d bytes of bodies the gateway refused before reading", sent)
	}
}

// uploadFlood is n concurrent uploads, upload i made by request(i).
type uploadFlood struct {
	done     chan struct{}
	sent     atomic.Int64 // body bytes the clients sent
	mu       sync.Mutex
	statuses map[int]int
	written  []int          // the uploads answered 204
	samples  map[int]string // an answer's body for each status
	problems []string
}

// runUploadFlood sends n uploads at s while a small value (the path
// small, written before) is read again and again, and the server's
// memory is watched: it fails the test if the peak RSS passes the body
// budget and 200 MB, or the small reads fail.
func runUploadFlood(t *testing.T, s *server, small string, n int, request func(i int) *http.Request) *uploadFlood {
	t.Helper()
	guard := watchMemory(t, s, uploadBudget+headroom)
	f := &uploadFlood{done: make(chan struct{}), statuses: map[int]int{}, samples: map[int]string{}}
	// 100-continue, as curl and aws-cli ask before a large body: a body
	// refused before it is read is never sent. Generous timeouts: only a
	// hang should fail.
	client := &http.Client{Timeout: 10 * time.Minute, Transport: &http.Transport{ExpectContinueTimeout: 5 * time.Minute}}
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			req := request(i)
			req.Body = uploadCounter{req.Body, &f.sent}
			req.Header.Set("Expect", "100-continue")
			resp, err := client.Do(req)
			f.record(i, resp, err)
		})
	}
	go func() { wg.Wait(); close(f.done) }()
	reads := keepReading(s.url+small, f.done)
	<-f.done
	peak, killed := guard.stop()
	if killed {
		t.Fatalf("the server's RSS reached %d MB, over the body budget (%d MB) + %d MB: killed (answers so far: %v)",
			peak>>20, uploadBudget>>20, headroom>>20, f.statuses)
	}
	t.Logf("%d uploads of %d MB: answers %v; peak RSS %d MB (body budget %d MB)", n, uploadSize>>20, f.statuses, peak>>20, uploadBudget>>20)
	if peak > uploadBudget+headroom {
		t.Errorf("peak RSS %d MB, over the body budget (%d MB) + %d MB", peak>>20, uploadBudget>>20, headroom>>20)
	}
	reads.check(t)
	return f
}

// uploadRequest is a PUT of upload i's body to url.
func uploadRequest(url string, i int) *http.Request {
	req, err := http.NewRequest(http.MethodPut, url, uploadPayload(i))
	if err != nil {
		panic(err)
	}
	req.ContentLength = uploadSize
	return req
}

// uploadPayload is upload i's body: uploadSize bytes of its own, made as they
// are read, never held whole.
func uploadPayload(i int) io.Reader {
	var seed [32]byte
	endian.LittleEndian.PutUint64(seed[:], uint64(i)+1)
	return io.LimitReader(rand.NewChaCha8(seed), uploadSize)
}

// uploadCounter counts the bytes a client reads from a body to send.
type uploadCounter struct {
	io.Reader
	n *atomic.Int64
}

func (c uploadCounter) Read(p []byte) (int, error) {
	n, err := c.Reader.Read(p)
	c.n.Add(int64(n))
	return n, err
}

func (uploadCounter) Close() error { return nil }

// record keeps an upload's answer, and what is wrong with it whatever
// the test allows: a failed transfer, a 503 without Retry-After.
func (f *uploadFlood) record(i int, resp *http.Response, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err != nil {
		f.problems = append(f.problems, fmt.Sprintf("upload %d: %v", i, err))
		return
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	f.statuses[resp.StatusCode]++
	switch {
	case err != nil:
		f.problems = append(f.problems, fmt.Sprintf("upload %d: %d, reading the answer: %v", i, resp.StatusCode, err))
	case resp.StatusCode == http.StatusServiceUnavailable && resp.Header.Get("Retry-After") == "":
		f.problems = append(f.problems, fmt.Sprintf("upload %d: 503 without Retry-After: %s", i, body))
	case resp.StatusCode == http.StatusNoContent:
		f.written = append(f.written, i)
	}
	if _, seen := f.samples[resp.StatusCode]; !seen {
		f.samples[resp.StatusCode] = string(bytes.TrimSpace(body))
	}
}

func (f *uploadFlood) count(status int) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.statuses[status]
}

// check fails the test for each problem, and for answers other than the
// statuses allowed.
func (f *uploadFlood) check(t *testing.T, allowed ...int) {
	t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, p := range f.problems {
		t.Error(p)
	}
	for status, n := range f.statuses {
		if !slices.Contains(allowed, status) {
			t.Errorf("%d uploads answered %d (%q), want only %v", n, status, f.samples[status], allowed)
		} else if status >= 300 {
			t.Logf("%d uploads answered %d: %s", n, status, f.samples[status])
		}
	}
}

// readBack reads every written upload back from prefix+i and compares it
// with its body, a MiB at a time.
func (f *uploadFlood) readBack(t *testing.T, prefix string) {
	t.Helper()
	for _, i := range f.written {
		if err := uploadSameAs(prefix+strconv.Itoa(i), uploadPayload(i)); err != nil {
			t.Errorf("upload %d: %v", i, err)
		}
	}
	t.Logf("%d uploads read back byte for byte", len(f.written))
}

func uploadSameAs(url string, want io.Reader) error {
	resp, err := http.Get(url)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET: %s", resp.Status)
	}
	got, exp := make([]byte, 1<<20), make([]byte, 1<<20)
	var at int64
	for {
		n, gerr := io.ReadFull(resp.Body, got)
		m, _ := io.ReadFull(want, exp[:n])
		if m != n || !bytes.Equal(got[:n], exp[:n]) {
			return fmt.Errorf("the value read back differs from the body sent in the MiB at %d", at)
		}
		at += int64(n)
		if errors.Is(gerr, io.EOF) || errors.Is(gerr, io.ErrUnexpectedEOF) {
			break
		}
		if gerr != nil {
			return fmt.Errorf("reading it back at %d: %w", at, gerr)
		}
	}
	if extra, _ := io.Copy(io.Discard, want); at != uploadSize || extra > 0 {
		return fmt.Errorf("read back %d bytes, sent %d", at, uploadSize)
	}
	return nil
}

// uploadPut writes a small value, which must succeed.
func uploadPut(t *testing.T, url, value string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPut, url, bytes.NewReader([]byte(value)))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode >= 300 {
		t.Fatalf("PUT %s: %s %s", url, resp.Status, body)
	}
}
