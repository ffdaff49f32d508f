package transfer

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log"
	"maps"
	"math"
	mrand "math/rand"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zarrgw/zarrgw/core/array"
	"github.com/zarrgw/zarrgw/core/dtype"
	"github.com/zarrgw/zarrgw/core/grid"
	"github.com/zarrgw/zarrgw/core/hierarchy"
	"github.com/zarrgw/zarrgw/core/meta"
	"github.com/zarrgw/zarrgw/core/ndarray"
	"github.com/zarrgw/zarrgw/host/runtime/registry"
	"github.com/zarrgw/zarrgw/plugins/stores/fsstore"
	"github.com/zarrgw/zarrgw/tests/support/fixtures"
	"github.com/zarrgw/zarrgw/tests/support/process"
	"github.com/zarrgw/zarrgw/tests/support/servers"
)

// putLog is an HTTP proxy in front of an S3 server that records the PUT
// requests of the runs sent through it: how many were answered, the
// body bytes sent (whole or cut short), and the keys.
type putLog struct {
	url, bucket string

	mu    sync.Mutex
	puts  int64
	bytes int64
	keys  map[string]bool
}

func newPutLog(t *testing.T, upstream, bucket string) *putLog {
	t.Helper()
	target, err := url.Parse(upstream)
	if err != nil {
		t.Fatal(err)
	}
	l := &putLog{bucket: bucket, keys: map[string]bool{}}
	proxy := httputil.NewSingleHostReverseProxy(target)
	proxy.ErrorLog = log.New(io.Discard, "", 0) // the requests of a run killed midway end so
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPut {
			proxy.ServeHTTP(w, r)
			return
		}
		r.Body = &loggedBody{ReadCloser: r.Body, l: l}
		proxy.ServeHTTP(w, r)
		l.mu.Lock()
		defer l.mu.Unlock()
		l.puts++
		l.keys[strings.TrimPrefix(r.URL.Path, "/"+l.bucket+"/")] = true
	}))
	t.Cleanup(srv.Close)
	l.url = srv.URL
	return l
}

type loggedBody struct {
	io.ReadCloser
	l *putLog
}

func (b *loggedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.l.mu.Lock()
	b.l.bytes += int64(n)
	b.l.mu.Unlock()
	return n, err
}

func (l *putLog) counts() (puts, bytes int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.puts, l.bytes
}

// s3Env is the environment that reaches S3 through endpoint.
func s3Env(s3 *servers.S3, endpoint, cache string) []string {
	return append(os.Environ(), "AWS_ENDPOINT_URL="+endpoint, "AWS_ACCESS_KEY_ID="+s3.AccessKey,
		"AWS_SECRET_ACCESS_KEY="+s3.SecretKey, "AWS_REGION="+s3.Region, "XDG_CACHE_HOME="+cache)
}

// writeV2Noisy writes below dir a v2 root group and a float32 array "a"
// of shape, in zlib-compressed chunks, every element distinct (chunks
// hardly compress), and a small int32 array "b".
func writeV2Noisy(t *testing.T, dir string, shape, chunks []int) {
	t.Helper()
	ctx := context.Background()
	s, err := fsstore.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := hierarchy.CreateGroup(ctx, s, "", meta.V2, json.RawMessage(`{"title":"partitions"}`)); err != nil {
		t.Fatal(err)
	}
	codecs := []meta.Extension{{Name: "bytes", Configuration: json.RawMessage(`{"endian":"little"}`)},
		{Name: "numcodecs.zlib", Configuration: json.RawMessage(`{"level":1}`)}}
	m := &meta.ArrayMeta{Format: meta.V2, Shape: shape, ChunkShape: chunks, DataType: dtype.Named("float32"),
		FillValue: make([]byte, 4), ChunkKey: meta.ChunkKeyEncoding{Name: "v2", Separator: "."},
		Attributes: json.RawMessage(`{"_ARRAY_DIMENSIONS":["y","x"]}`), Codecs: codecs}
	a, err := hierarchy.CreateArray(ctx, s, "a", m, array.Options{Codecs: registry.Codecs()})
	if err != nil {
		t.Fatal(err)
	}
	data := ndarray.New(m.DataType, shape)
	rnd := mrand.New(mrand.NewSource(2))
	for i := 0; i < len(data.Data); i += 4 {
		binary.LittleEndian.PutUint32(data.Data[i:], math.Float32bits(float32(i/4)+rnd.Float32()))
	}
	if err := a.WriteAll(ctx, data); err != nil {
		t.Fatal(err)
	}
	mb := *m
	mb.Shape, mb.ChunkShape, mb.DataType, mb.Attributes = []int{100}, []int{30}, dtype.Named("int32"), json.RawMessage(`{"_ARRAY_DIMENSIONS":["t"]}`)
	b, err := hierarchy.CreateArray(ctx, s, "b", &mb, array.Options{Codecs: registry.Codecs()})
	if err != nil {
		t.Fatal(err)
	}
	small := ndarray.New(mb.DataType, []int{100})
	for i := range small.Data {
		small.Data[i] = byte(i) + 1
	}
	if err := b.Write(ctx, grid.Box([]int{0}, []int{100}), small); err != nil {
		t.Fatal(err)
	}
}

// bucketKeys lists the objects of a bucket of versitygw's posix backend.
func bucketKeys(t *testing.T, s3 *servers.S3, bucket string) []string {
	t.Helper()
	root := filepath.Join(s3.Dir, bucket)
	var keys []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && strings.HasPrefix(d.Name(), ".sgw") {
			return filepath.SkipDir // versitygw's own (uploads in progress)
		}
		if !d.IsDir() {
			rel, _ := filepath.Rel(root, p)
			keys = append(keys, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(keys)
	return keys
}

// The scenario: a rewrite to sharded v3 into S3 in N = 4
// partitions run at once, partition 1 also a second time at once on the
// same machine (it waits for the first and then has nothing to do) and
// partition 2 killed (SIGKILL) once its journal holds a quarter of its
// shards, then run again. The plans of the four are disjoint and cover
// what the copy writes; every object PUT was PUT by runs of one
// partition only, in its plan; all runs together PUT less than 110% of
// the bytes of one clean copy; the result reads back equal to the
// source, and cp --verify says so (and finds a shard deleted since).
func TestPartitionsRewriteToS3(t *testing.T) {
	src := t.TempDir()
	writeV2Noisy(t, src, []int{1024, 512}, []int{32, 32}) // 128 shards of 2 x 2 chunks
	s3 := servers.StartS3(t)
	rewrite := []string{"--to-format", "3", "--chunks-per-shard", "2", "--jobs", "4"}
	run := func(endpoint, cache string, args ...string) *exec.Cmd {
		cmd := exec.Command(zarrgw, append(append([]string{"cp"}, args...), rewrite...)...)
		cmd.Env = s3Env(s3, endpoint, cache)
		return cmd
	}
	runOK := func(cmd *exec.Cmd) string {
		t.Helper()
		var out, errOut bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errOut
		if err := cmd.Run(); err != nil {
			t.Fatalf("%v: %v\n%s%s", cmd.Args, err, out.Bytes(), errOut.Bytes())
		}
		return out.String() + errOut.String()
	}

	// one clean copy, whole: the bytes it PUTs
	cleanBucket := s3.NewBucket(t)
	clean := newPutLog(t, s3.Endpoint, cleanBucket)
	runOK(run(clean.url, t.TempDir(), "-q", src, "s3://"+cleanBucket))
	_, cleanBytes := clean.counts()

	bucket := s3.NewBucket(t)
	dst := "s3://" + bucket
	const n = 4
	// each partition's plan, from its dry run
	plans := make([][]string, n)
	owner := map[string]int{}
	for i := range n {
		out, err := run(s3.Endpoint, t.TempDir(), "--dry-run", "--json", "--partition", fmt.Sprintf("%d/%d", i, n), src, dst).Output()
		if err != nil {
			t.Fatalf("dry run of partition %d: %v", i, err)
		}
		var plan struct {
			Partition struct {
				Objects int64    `json:"objects"`
				Keys    []string `json:"keys"`
			} `json:"partition"`
		}
		if err := json.Unmarshal(out, &plan); err != nil {
			t.Fatalf("dry run of partition %d: %v\n%s", i, err, out)
		}
		plans[i] = plan.Partition.Keys
		for _, k := range plans[i] {
			if j, ok := owner[k]; ok {
				t.Fatalf("%s is in the plans of partitions %d and %d", k, j, i)
			}
			owner[k] = i
		}
	}

	caches := make([]string, n)
	for i := range caches {
		caches[i] = t.TempDir() // a machine each; the twins of partition 1 share one
	}
	part := func(i int) string { return fmt.Sprintf("--partition=%d/%d", i, n) }
	logs := map[string]*putLog{}
	start := func(name string, i int) (*exec.Cmd, *servers.Log) {
		logs[name] = newPutLog(t, s3.Endpoint, bucket)
		c := run(logs[name].url, caches[i], "-q", part(i), src, dst)
		out := &servers.Log{}
		c.Stdout, c.Stderr = out, out
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		return c, out
	}
	type ended struct {
		name string
		err  error
		out  *servers.Log
	}
	done := make(chan ended, n+1)
	wait := func(name string, c *exec.Cmd, out *servers.Log) {
		go func() { done <- ended{name, c.Wait(), out} }()
	}
	// partition 1 is begun, and stopped (SIGSTOP) once it has written a
	// shard, while its twin starts: the twin must find it holding the
	// journal, and wait
	first, firstOut := start("1", 1)
	if !waitFor(func() bool { return journalEntries(t, caches[1], "c ") > 0 }) {
		t.Fatalf("partition 1 wrote no shard in a minute\n%s", firstOut.String())
	}
	if err := process.Stop(first.Process); err != nil {
		t.Fatal(err)
	}
	twin, twinOut := start("1 again", 1)
	if !waitFor(func() bool { return strings.Contains(twinOut.String(), "waiting for it to end") }) {
		process.Continue(first.Process)
		t.Fatalf("the second run of partition 1 did not wait for the first:\n%s", twinOut.String())
	}
	process.Continue(first.Process)
	wait("1", first, firstOut)
	wait("1 again", twin, twinOut)
	for _, i := range []int{0, 3} {
		c, out := start(fmt.Sprint(i), i)
		wait(fmt.Sprint(i), c, out)
	}
	// partition 2, killed once its journal holds a quarter of its shards
	killed, killedOut := start("2 killed", 2)
	quarter := len(plans[2]) / 4
	if endedFirst, err := killAt(killed, func() bool { return journalEntries(t, caches[2], "c ") >= quarter }); endedFirst {
		t.Fatalf("partition 2 ended (%v) before its journal held %d shards:\n%s", err, quarter, killedOut.String())
	}
	kept := journalEntries(t, caches[2], "c ")
	for range n {
		e := <-done
		if e.err != nil {
			t.Fatalf("partition run %s: %v\n%s", e.name, e.err, e.out.String())
		}
	}
	logs["2 again"] = newPutLog(t, s3.Endpoint, bucket)
	runOK(run(logs["2 again"].url, caches[2], "-q", part(2), src, dst))

	// every object PUT was PUT by runs of one partition, in its plan
	written := bucketKeys(t, s3, bucket)
	var total int64
	for name, l := range logs {
		i := int(name[0] - '0')
		for k := range l.keys {
			if j, ok := owner[k]; !ok || j != i {
				t.Errorf("run %s of partition %d PUT %s, of partition %d's plan (in a plan: %v)", name, i, k, j, ok)
			}
		}
		puts, b := l.counts()
		total += b
		t.Logf("run %s: %d PUTs, %d bytes", name, puts, b)
	}
	if got := slices.Sorted(maps.Keys(owner)); !slices.Equal(got, written) {
		t.Errorf("the plans hold\n%v\nthe bucket\n%v", got, written)
	}
	if puts, _ := logs["1 again"].counts(); puts != 0 {
		t.Errorf("the second run of partition 1 PUT %d objects after the first had done them all", puts)
	}
	if puts, _ := logs["2 again"].counts(); puts == 0 || puts > int64(len(plans[2])-kept) {
		t.Errorf("the rerun of partition 2 PUT %d objects; %d of its %d were in its journal: it did not resume", puts, kept, len(plans[2]))
	}
	t.Logf("a clean copy PUTs %d bytes; the partitions' runs %d (%.1f%% more); partition 2 killed with %d of %d shards journaled",
		cleanBytes, total, 100*(float64(total)/float64(cleanBytes)-1), kept, len(plans[2]))
	if float64(total) > 1.10*float64(cleanBytes) {
		t.Errorf("the partitions' runs PUT %d bytes, more than 110%% of a clean copy's %d", total, cleanBytes)
	}

	// the result reads back equal to the source, and --verify says so
	env := s3Env(s3, s3.Endpoint, t.TempDir())
	for _, path := range []string{"a", "b"} {
		cat := exec.Command(zarrgw, "cat", "--format", "raw", "--path", path, dst)
		cat.Env = env
		got, err := cat.Output()
		if err != nil {
			t.Fatalf("cat %s: %v", path, err)
		}
		if want := catRaw(t, src, path); !bytes.Equal(got, want) {
			t.Fatalf("/%s reads back %d bytes unlike the source's %d", path, len(got), len(want))
		}
	}
	verify := func() (string, int) {
		cmd := exec.Command(zarrgw, append([]string{"cp", "--verify", src, dst}, rewrite...)...)
		cmd.Env = env
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		err := cmd.Run()
		var exit *exec.ExitError
		if err != nil && !errors.As(err, &exit) {
			t.Fatal(err)
		}
		return out.String(), cmd.ProcessState.ExitCode()
	}
	if out, code := verify(); code != 0 || !strings.Contains(out, fmt.Sprintf("%d objects checked: all as the copy makes them", len(written))) {
		t.Fatalf("cp --verify of the finished copy: exit %d\n%s", code, out)
	}
	gone := plans[3][len(plans[3])/2]
	if err := os.Remove(filepath.Join(s3.Dir, bucket, filepath.FromSlash(gone))); err != nil {
		t.Fatal(err)
	}
	if out, code := verify(); code != 1 || !strings.Contains(out, "missing "+gone+"\n") {
		t.Fatalf("cp --verify with %s deleted: exit %d\n%s", gone, code, out)
	}
}

// waitFor polls cond until it holds (true) or a minute passes (false):
// a bound against a hang, not a measure of time.
func waitFor(cond func() bool) bool {
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if cond() {
			return true
		}
	}
	return false
}

// A byte copy of every fixture in three partitions, run one after the
// other in reverse, arrives byte for byte; cp --verify finds it whole,
// and finds a changed value.
func TestPartitionsByteCopy(t *testing.T) {
	fx := fixtures.Dir(t)
	dst := filepath.Join(t.TempDir(), "copy")
	for _, i := range []int{2, 1, 0} {
		if out, errOut, code := cp(t, t.TempDir(), "-q", "--partition", fmt.Sprintf("%d/3", i), fx, dst); code != 0 {
			t.Fatalf("partition %d/3: exit %d\n%s%s", i, code, out, errOut)
		}
	}
	want, got := files(t, fx), files(t, dst)
	if !maps.EqualFunc(want, got, bytes.Equal) {
		t.Fatalf("the three partitions copied %d files, %d differ or are missing, of %d", len(got), len(want)-countEqual(want, got), len(want))
	}
	out, errOut, code := cp(t, t.TempDir(), "--verify", fx, dst)
	if code != 0 || !strings.Contains(out, "all as the copy makes them") {
		t.Fatalf("cp --verify: exit %d\n%s%s", code, out, errOut)
	}
	var changed string // a chunk, not a metadata document
	for _, name := range slices.Sorted(maps.Keys(got)) {
		if base := filepath.Base(name); !strings.HasPrefix(base, ".z") && !strings.HasSuffix(base, ".json") {
			changed = name
			break
		}
	}
	if err := os.WriteFile(filepath.Join(dst, changed), []byte("other bytes"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code = cp(t, t.TempDir(), "--verify", fx, dst)
	if code != 1 || !strings.Contains(out, "different "+filepath.ToSlash(changed)+":") || !strings.Contains(errOut, "1 different") {
		t.Fatalf("cp --verify with %s changed: exit %d\n%s%s", changed, code, out, errOut)
	}
}

func countEqual(a, b map[string][]byte) int {
	n := 0
	for k, v := range a {
		if bytes.Equal(b[k], v) {
			n++
		}
	}
	return n
}

// --partition and --verify are checked with the other arguments: a
// mistake is one error naming the flag, and nothing is written.
func TestCLIPartitionArguments(t *testing.T) {
	src := t.TempDir()
	writeV2Source(t, src)
	for _, c := range []struct {
		args []string
		say  string
	}{
		{[]string{"--partition", "4/4"}, `--partition "4/4": I counts the parts from 0: give 0/4 to 3/4`},
		{[]string{"--partition", "1"}, `--partition "1": give I/N`},
		{[]string{"--partition", "0/0"}, "N, the number of parts, must be 1 or more"},
		{[]string{"--partition", "1/2", "--overwrite"}, "--partition and --overwrite"},
		{[]string{"--verify", "--dry-run"}, "--verify and --dry-run"},
		{[]string{"--verify"}, "does not exist: nothing to verify"},
	} {
		dst := filepath.Join(t.TempDir(), "y.zarr")
		out, errOut, code := cp(t, t.TempDir(), append(append([]string{"-q"}, c.args...), src, dst)...)
		if code != 1 || !strings.Contains(errOut, c.say) || len(lines(errOut)) != 1 {
			t.Errorf("cp %v: exit %d, want 1 and one line saying %q\n%s%s", c.args, code, c.say, out, errOut)
		}
		if _, err := os.Stat(dst); err == nil {
			t.Errorf("cp %v made its destination", c.args)
		}
	}
	// more partitions than objects: the empty ones say so, even quiet
	dst := filepath.Join(t.TempDir(), "y.zarr")
	_, errOut, code := cp(t, t.TempDir(), "-q", "--path", "b", "--partition", "99/100", src, dst)
	if code != 0 || !strings.Contains(errOut, "partition 99/100: nothing to write") {
		t.Fatalf("an empty partition: exit %d\n%s", code, errOut)
	}
}

// Every fixture hierarchy rewritten to sharded v3 in three partitions
// (run in the order 2, 0, 1) is byte for byte what one whole rewrite
// makes: every data type, 0-d arrays and strings included.
func TestPartitionsRewriteFixtures(t *testing.T) {
	fx := fixtures.Dir(t)
	whole, parts := t.TempDir(), t.TempDir()
	args := []string{"-q", "--to-format", "3", "--chunks-per-shard", "2"}
	for _, root := range hierarchyRoots(t, fx) {
		if out, errOut, code := cp(t, t.TempDir(), append(args, "--path", root, fx, whole)...); code != 0 {
			t.Fatalf("cp --path %s: exit %d\n%s%s", root, code, out, errOut)
		}
		for _, i := range []int{2, 0, 1} {
			a := append(args, "--partition", fmt.Sprintf("%d/3", i), "--path", root, fx, parts)
			if out, errOut, code := cp(t, t.TempDir(), a...); code != 0 {
				t.Fatalf("cp --partition %d/3 --path %s: exit %d\n%s%s", i, root, code, out, errOut)
			}
		}
	}
	want, got := files(t, whole), files(t, parts)
	if !maps.EqualFunc(want, got, bytes.Equal) {
		var differ []string
		for _, name := range slices.Sorted(maps.Keys(want)) {
			if !bytes.Equal(want[name], got[name]) {
				differ = append(differ, name)
			}
		}
		t.Fatalf("the partitions made %d files, the whole rewrite %d; these differ or are missing: %v", len(got), len(want), differ)
	}
	fmt.Printf("cp --partition of every fixture to sharded v3: %d files, each as one whole rewrite makes it\n", len(want))
}
