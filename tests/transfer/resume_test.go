package transfer

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/json"
	"errors"
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
	"github.com/zarrgw/zarrgw/host/runtime/registry"
	"github.com/zarrgw/zarrgw/plugins/stores/fsstore"
	"github.com/zarrgw/zarrgw/tests/support/process"
	"github.com/zarrgw/zarrgw/tests/support/servers"
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

	// one clean copy: how many bytes
	if out, errOut, code := zarrgwEnv(t, env, args(s3.NewBucket(t))...); code != 0 {
		t.Fatalf("clean copy: exit %d\n%s%s", code, out, errOut)
	}
	clean := counter.bytes.Swap(0)

	// the same copy, killed four times, each run once it has copied a
	// random number of keys (at most 100 of the 600: every run is killed
	// midway), then finished
	bucket := s3.NewBucket(t)
	cache := t.TempDir()
	r := mrand.New(mrand.NewSource(time.Now().UnixNano()))
	var kills []string
	killRuns(t, 4, func() *exec.Cmd {
		cmd := exec.Command(zarrgw, args(bucket)...)
		cmd.Env = append(append(os.Environ(), "XDG_CACHE_HOME="+cache), env...)
		return cmd
	}, func() func() bool {
		from, more := journalEntries(t, cache, ""), 20+r.Intn(81)
		return func() bool {
			n := journalEntries(t, cache, "")
			if n >= from+more {
				kills = append(kills, fmt.Sprintf("after %d keys", n-from))
				return true
			}
			return false
		}
	})
	final := exec.Command(zarrgw, args(bucket)...)
	final.Env = append(append(os.Environ(), "XDG_CACHE_HOME="+cache), env...)
	out, err := final.CombinedOutput()
	if err != nil {
		t.Fatalf("the last run: %v\n%s", err, out)
	}
	total := counter.bytes.Load()
	t.Logf("clean copy %d bytes; killed %s; then %s; %d bytes sent in all (%.1f%% more)",
		clean, strings.Join(kills, ", "), strings.TrimSpace(string(out)), total, 100*(float64(total)/float64(clean)-1))
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
// each (SIGKILL) once it has reached a point of its work: point is called
// before each run starts and returns the test of that run's point, which
// is asked every millisecond or so with the run stopped (SIGSTOP), so
// that what it sees is still so when the kill lands. A run that ends
// before reaching its point fails the test: every run must be killed
// midway, on a fast machine as on a slow one.
func killRuns(t *testing.T, n int, cmd func() *exec.Cmd, point func() func() bool) {
	t.Helper()
	for i := range n {
		reached := point()
		c := cmd()
		var out bytes.Buffer
		c.Stdout, c.Stderr = &out, &out
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		if ended, err := killAt(c, reached); ended {
			t.Fatalf("run %d of %d ended before the point it was to be killed at: %v\n%s", i+1, n, err, out.Bytes())
		}
	}
}

// killAt kills c's process once reached says so and waits for it; ended
// reports that the process ended first, with what Wait returned.
func killAt(c *exec.Cmd, reached func() bool) (ended bool, err error) {
	done := make(chan error, 1)
	go func() { done <- c.Wait() }()
	for {
		select {
		case err := <-done:
			return true, err
		case <-time.After(time.Millisecond):
		}
		if process.Stop(c.Process) != nil {
			continue // it ended; done says so next
		}
		if reached() {
			c.Process.Signal(syscall.SIGKILL)
			<-done
			return false, nil
		}
		process.Continue(c.Process)
	}
}

// journalEntries counts the complete entries of the resume journal of the
// one copy with its journal under cache whose entries start with prefix
// ("" for all).
func journalEntries(t *testing.T, cache, prefix string) int {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(cache, "zarrgw", "cp", "*.journal"))
	if err != nil || len(paths) > 1 {
		t.Fatalf("journals under %s: %v %v", cache, paths, err)
	}
	if len(paths) == 0 {
		return 0
	}
	b, err := os.ReadFile(paths[0])
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Fatal(err)
	}
	n := 0
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, prefix) && strings.HasSuffix(line, "\t.") {
			n++
		}
	}
	return n
}

// temporaryFiles lists the writers' temporary files below dir.
func temporaryFiles(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasPrefix(d.Name(), ".zarrgw-tmp-") {
			out = append(out, p)
		}
		return nil
	})
	return out
}

// A rewrite (to sharded v3) killed (SIGKILL) three times mid-write and
// started again ends with every element of the source in place: shards
// the killed runs left half made are made again, none is left torn, the
// shards of every slab the killed runs finished are kept, and no
// temporary file of a killed writer is left in the destination.
func TestKilledRewriteResumes(t *testing.T) {
	src := t.TempDir()
	writeNoisyArray(t, src, "a", []int{4096, 4096}, []int{128, 128}) // 64 shards of 4 x 4 chunks
	// 64 shards of 1 MiB, each recorded in the journal once written
	args := []string{"cp", "-q", "--chunks-per-shard", "4", "--jobs", "4", "--memory", "16MiB", src}
	dst, cache := t.TempDir(), t.TempDir()
	run := func() *exec.Cmd {
		cmd := exec.Command(zarrgw, append(args, dst)...)
		cmd.Env = append(os.Environ(), "XDG_CACHE_HOME="+cache)
		return cmd
	}
	// each run is killed once it has finished a shard of its own and is
	// caught writing another (its temporary file in place)
	killRuns(t, 3, run, func() func() bool {
		from := journalEntries(t, cache, "c ")
		return func() bool {
			return journalEntries(t, cache, "c ") > from && len(temporaryFiles(t, dst)) > 0
		}
	})
	// the shards on disk and when each was written
	shards := func() map[string]time.Time {
		m := map[string]time.Time{}
		filepath.WalkDir(filepath.Join(dst, "a", "c"), func(p string, d fs.DirEntry, err error) error {
			if info, e := d.Info(); err == nil && e == nil && !d.IsDir() && !strings.HasPrefix(d.Name(), ".") {
				m[p] = info.ModTime()
			}
			return nil
		})
		return m
	}
	before, done, temps := shards(), journalEntries(t, cache, "c "), temporaryFiles(t, dst)
	if out, err := run().CombinedOutput(); err != nil {
		t.Fatalf("the last run: %v\n%s", err, out)
	}
	kept := 0 // shards the last run skipped as done
	for p, mt := range shards() {
		if b, ok := before[p]; ok && b.Equal(mt) {
			kept++
		}
	}
	t.Logf("3 kills, leaving %d of 64 shards recorded done, %d on disk, %d temporary files; the last run kept %d shards",
		done, len(before), len(temps), kept)
	if done < 3 {
		t.Errorf("the journal records %d shards after 3 runs each killed after finishing one", done)
	}
	// every shard recorded as finished is kept
	if kept < done {
		t.Errorf("the last run kept %d of the %d shards the killed runs left, fewer than the %d they recorded as finished: it did not resume",
			kept, len(before), done)
	}
	if len(temps) == 0 {
		t.Errorf("no temporary file after runs killed mid-write: the test cannot show that the last run removes them")
	}
	if left := temporaryFiles(t, dst); len(left) > 0 {
		t.Errorf("temporary files of the killed runs left in the destination after the last run: %v", left)
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

// A journal left by an older zarrgw, which rewrote arrays slab by slab,
// is set aside with a line saying so: the rerun copies every chunk again,
// whole, and the result reads as its source. (The journal here is one a
// failed run of this version left, given slab entries as an older one
// wrote them.)
func TestOlderSlabJournalSetAside(t *testing.T) {
	src, dst, cache := t.TempDir(), filepath.Join(t.TempDir(), "dst"), t.TempDir()
	writeNoisyArray(t, src, "a", []int{64, 64}, []int{16, 16})
	chunk := filepath.Join(src, "a", "c", "1", "1")
	good, err := os.ReadFile(chunk)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(chunk, []byte("not zstd"), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"cp", "--chunks", "32,32", src, dst}
	if _, errOut, code := zarrgwIn(t, cache, args...); code != 1 {
		t.Fatalf("a rewrite of a corrupt chunk: exit %d, want 1\n%s", code, errOut)
	}
	paths, _ := filepath.Glob(filepath.Join(cache, "zarrgw", "cp", "*.journal"))
	if len(paths) != 1 {
		t.Fatalf("journals left by the failed run: %v", paths)
	}
	f, err := os.OpenFile(paths[0], os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(f, "s a 0\t4096\t.\ns a 1\t4096\t.\n")
	f.Close()
	if err := os.WriteFile(chunk, good, 0o644); err != nil {
		t.Fatal(err)
	}
	_, errOut, code := zarrgwIn(t, cache, args...)
	if code != 0 || !strings.Contains(errOut, "journal holds 2 slabs of a rewrite by an older zarrgw") {
		t.Fatalf("the rerun over slab entries: exit %d, want 0 and a line saying they are set aside\n%s", code, errOut)
	}
	if want, got := catRaw(t, src, "a"), catRaw(t, dst, "a"); !bytes.Equal(want, got) {
		t.Fatalf("the rerun reads back differently from its source")
	}
}
