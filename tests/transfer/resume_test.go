package transfer

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"math"
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

	"github.com/zarrgw/zarrgw/core/array"
	"github.com/zarrgw/zarrgw/core/dtype"
	"github.com/zarrgw/zarrgw/core/hierarchy"
	"github.com/zarrgw/zarrgw/core/meta"
	"github.com/zarrgw/zarrgw/core/ndarray"
	"github.com/zarrgw/zarrgw/host/registry"
	fsstore "github.com/zarrgw/zarrgw/plugins/stores/fs"
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
	killed := killRuns(t, 4, took, 0.1, 0.25, func() *exec.Cmd {
		cmd := exec.Command(zarrgw, args(bucket)...)
		cmd.Env = append(append(os.Environ(), "XDG_CACHE_HOME="+cache), env...)
		return cmd
	})
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

// killRuns starts n runs one after the other, each made by cmd, and kills
// each (SIGKILL) at a random moment between lo and hi times clean, the
// time of one clean run, unless it ends first (nothing left to resume);
// it returns how many it killed.
func killRuns(t *testing.T, n int, clean time.Duration, lo, hi float64, cmd func() *exec.Cmd) int {
	t.Helper()
	r := mrand.New(mrand.NewSource(time.Now().UnixNano()))
	killed := 0
	for i := 0; i < n; i++ {
		c := cmd()
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- c.Wait() }()
		select {
		case <-done:
		case <-time.After(time.Duration(float64(clean) * (lo + (hi-lo)*r.Float64()))):
			c.Process.Signal(syscall.SIGKILL)
			<-done
			killed++
		}
	}
	return killed
}

// A rewrite (to sharded v3) killed (SIGKILL) several times and started
// again ends with every element of the source in place: shards the killed
// runs left half made are made again, none is left torn.
func TestKilledRewriteResumes(t *testing.T) {
	src := t.TempDir()
	writeNoisyArray(t, src, "a", []int{4096, 4096}, []int{128, 128}) // 64 shards of 4 x 4 chunks
	args := func(dst string) []string {
		// 8 MiB slabs: a run killed midway has completed some of the 8
		return []string{"cp", "-q", "--chunks-per-shard", "4", "--jobs", "4", "--memory", "8MiB", src, dst}
	}
	run := func(cache string, argv []string) *exec.Cmd {
		cmd := exec.Command(zarrgw, argv...)
		cmd.Env = append(os.Environ(), "XDG_CACHE_HOME="+cache)
		return cmd
	}
	start := time.Now()
	if out, err := run(t.TempDir(), args(t.TempDir())).CombinedOutput(); err != nil {
		t.Fatalf("clean rewrite: %v\n%s", err, out)
	}
	took := time.Since(start)

	dst, cache := t.TempDir(), t.TempDir()
	killed := killRuns(t, 4, took, 0.2, 0.4, func() *exec.Cmd { return run(cache, args(dst)) })
	// the shards on disk and when each was written
	shards := func() map[string]time.Time {
		m := map[string]time.Time{}
		filepath.WalkDir(filepath.Join(dst, "a", "c"), func(p string, d fs.DirEntry, err error) error {
			if info, e := d.Info(); err == nil && e == nil && !d.IsDir() {
				m[p] = info.ModTime()
			}
			return nil
		})
		return m
	}
	before := shards()
	if out, err := run(cache, args(dst)).CombinedOutput(); err != nil {
		t.Fatalf("the last run: %v\n%s", err, out)
	}
	kept := 0 // shards the last run skipped as done
	for p, mt := range shards() {
		if b, ok := before[p]; ok && b.Equal(mt) {
			kept++
		}
	}
	t.Logf("clean rewrite in %s; %d kills, leaving %d of 64 shards, %d of them kept by the last run",
		took.Round(time.Millisecond), killed, len(before), kept)
	// only the slab in flight when a run was killed (8 MiB: a row of 8
	// shards) is made again
	if kept == 0 || kept < len(before)-8 {
		t.Errorf("the last run kept %d of the %d shards the killed runs left: it did not resume", kept, len(before))
	}
	if killed < 2 || len(before) == 0 {
		t.Fatalf("%d runs killed, leaving %d of 64 shards: the test needs several kills midway", killed, len(before))
	}
	if _, err := os.Stat(filepath.Join(dst, "a", "zarr.json")); err != nil {
		t.Fatalf("the rewritten array: %v", err)
	}
	want, got := catRaw(t, src, "a"), catRaw(t, dst, "a")
	if !bytes.Equal(want, got) {
		t.Fatalf("the resumed rewrite reads back differently from its source (%d and %d bytes)", len(got), len(want))
	}
}

// writeNoisyArray writes a float32 v3 array of shape and chunks at path
// below dir, zstd-compressed, every element distinct.
func writeNoisyArray(t *testing.T, dir, path string, shape, chunks []int) {
	t.Helper()
	ctx := context.Background()
	s, err := fsstore.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	m := &meta.ArrayMeta{Format: meta.V3, Shape: shape, ChunkShape: chunks, DataType: dtype.Named("float32"),
		FillValue: make([]byte, 4), ChunkKey: meta.ChunkKeyEncoding{Name: "default", Separator: "/"}, Attributes: json.RawMessage(`{}`),
		Codecs: []meta.Extension{{Name: "bytes", Configuration: json.RawMessage(`{"endian":"little"}`)},
			{Name: "zstd", Configuration: json.RawMessage(`{"level":1,"checksum":false}`)}}}
	a, err := hierarchy.CreateArray(ctx, s, path, m, array.Options{Codecs: registry.Codecs()})
	if err != nil {
		t.Fatal(err)
	}
	data := ndarray.New(m.DataType, shape)
	rnd := mrand.New(mrand.NewSource(1))
	for i := 0; i < len(data.Data); i += 4 {
		binary.LittleEndian.PutUint32(data.Data[i:], math.Float32bits(float32(i/4)+rnd.Float32()))
	}
	if err := a.WriteAll(ctx, data); err != nil {
		t.Fatal(err)
	}
}

// catRaw reads the array at path below dir with zarrgw cat.
func catRaw(t *testing.T, dir, path string) []byte {
	t.Helper()
	out, err := exec.Command(zarrgw, "cat", "--format", "raw", "--path", path, dir).Output()
	if err != nil {
		t.Fatalf("cat %s %s: %v", dir, path, err)
	}
	return out
}
