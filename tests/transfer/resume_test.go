package transfer

import (
	"bytes"
	"crypto/rand"
	"fmt"
	"io"
	mrand "math/rand"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/zarrgw/zarrgw/tests/servers"
)

// putCounter is an HTTP proxy in front of an S3 server that counts the
// body bytes of the PUT requests it forwards, whole or cut short.
type putCounter struct {
	bytes atomic.Int64
	url   string
}

func newPutCounter(t *testing.T, upstream string) *putCounter {
	t.Helper()
	target, err := url.Parse(upstream)
	if err != nil {
		t.Fatal(err)
	}
	pc := &putCounter{}
	proxy := httputil.NewSingleHostReverseProxy(target)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPut {
			r.Body = &countingBody{ReadCloser: r.Body, n: &pc.bytes}
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	pc.url = srv.URL
	return pc
}

type countingBody struct {
	io.ReadCloser
	n *atomic.Int64
}

func (c *countingBody) Read(p []byte) (int, error) {
	n, err := c.ReadCloser.Read(p)
	c.n.Add(int64(n))
	return n, err
}

// A copy to S3 killed (SIGKILL) at random moments and started again ends
// with every value in place, and all runs together send less than 10% more
// than one clean copy does.
func TestKilledCopyResumes(t *testing.T) {
	src := t.TempDir()
	for i := 0; i < 600; i++ {
		b := make([]byte, 64<<10)
		rand.Read(b)
		dir := filepath.Join(src, "data.zarr", "c", fmt.Sprint(i/100))
		os.MkdirAll(dir, 0o755)
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprint(i%100)), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s3 := servers.StartS3(t)
	counter := newPutCounter(t, s3.Endpoint)
	env := []string{"AWS_ENDPOINT_URL=" + counter.url, "AWS_ACCESS_KEY_ID=" + s3.AccessKey,
		"AWS_SECRET_ACCESS_KEY=" + s3.SecretKey, "AWS_REGION=" + s3.Region}
	args := func(bucket string) []string { return []string{"cp", "-q", "--jobs", "8", src, "s3://" + bucket} }

	// one clean copy: how many bytes and how long
	start := time.Now()
	if out, errOut, code := zarrgwEnv(t, env, args(s3.NewBucket(t))...); code != 0 {
		t.Fatalf("clean copy: exit %d\n%s%s", code, out, errOut)
	}
	clean, took := counter.bytes.Swap(0), time.Since(start)

	// the same copy, killed four times at random moments, then finished
	bucket := s3.NewBucket(t)
	cache := t.TempDir()
	r := mrand.New(mrand.NewSource(time.Now().UnixNano()))
	killed := 0
	for i := 0; i < 4; i++ {
		cmd := exec.Command(zarrgw, args(bucket)...)
		cmd.Env = append(append(os.Environ(), "XDG_CACHE_HOME="+cache), env...)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done: // finished before the kill: nothing left to resume
		case <-time.After(time.Duration(float64(took) * (0.1 + 0.15*r.Float64()))):
			cmd.Process.Signal(syscall.SIGKILL)
			<-done
			killed++
		}
	}
	final := exec.Command(zarrgw, args(bucket)...)
	final.Env = append(append(os.Environ(), "XDG_CACHE_HOME="+cache), env...)
	out, err := final.CombinedOutput()
	if err != nil {
		t.Fatalf("the last run: %v\n%s", err, out)
	}
	total := counter.bytes.Load()
	t.Logf("clean copy %d bytes in %s; %d kills, then %s; %d bytes sent in all (%.1f%% more)",
		clean, took.Round(time.Millisecond), killed, strings.TrimSpace(string(out)), total, 100*(float64(total)/float64(clean)-1))
	if killed < 2 {
		// the first two runs last at most half a clean copy's time
		t.Fatalf("%d runs were killed midway, not several: the copy is too quick for the test", killed)
	}
	if float64(total) > 1.10*float64(clean) {
		t.Errorf("%d bytes sent over all runs, more than 110%% of a clean copy's %d", total, clean)
	}
	// every value arrived whole: copy it back and compare
	back := t.TempDir()
	if out, errOut, code := zarrgwEnv(t, env, "cp", "-q", "s3://"+bucket, back); code != 0 {
		t.Fatalf("copy back: exit %d\n%s%s", code, out, errOut)
	}
	want, got := files(t, src), files(t, back)
	for name, b := range want {
		if !bytes.Equal(got[name], b) {
			t.Errorf("%s differs after the killed and resumed copy", name)
		}
	}
	if len(got) != len(want) {
		t.Errorf("%d values in the bucket, %d copied", len(got), len(want))
	}
}
