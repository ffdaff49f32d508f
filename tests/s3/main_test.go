// Package s3 drives real S3 clients from Debian against a running `zarrgw
// serve` with an s3 block: aws-cli, boto3, rclone and s3cmd upload,
// download, list, sync and delete, and everything they upload reads back
// byte for byte through the key API and, for a Zarr array, through the
// array API; GDAL's Zarr driver reads arrays written by python3-zarr and
// by zarrgw through /vsis3/, with the dataset on the filesystem, on S3
// (versitygw) and on Azure (Azurite); and versitygw's client-side suite
// runs against the S3 listener, its failures held to a checked-in list.
//
// A client that is not installed fails the test under CI (CI=true), with
// the reason; elsewhere the test is skipped, loudly. scripts/setup.sh
// installs them all.
package s3

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	bin "github.com/zarrgw/zarrgw/tests/support/binary"
	"github.com/zarrgw/zarrgw/tests/support/servers"
)

var zarrgw string

func TestMain(m *testing.M) { bin.Main(m, &zarrgw) }

// need returns the path of a client program, or ends the test when it is
// not installed: a failure under CI, a loud skip elsewhere.
func need(t *testing.T, path string) string {
	t.Helper()
	if _, err := os.Stat(path); err != nil {
		servers.Unavailable(t, "%s is not installed (%v)", path, err)
	}
	return path
}

// needPython checks that Debian's python3 has the modules a test uses.
func needPython(t *testing.T, modules ...string) string {
	t.Helper()
	py := need(t, "/usr/bin/python3")
	if out, err := exec.Command(py, "-c", "import "+strings.Join(modules, ", ")).CombinedOutput(); err != nil {
		servers.Unavailable(t, "/usr/bin/python3 cannot import %s: %s", strings.Join(modules, ", "), strings.TrimSpace(string(out)))
	}
	return py
}

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// The test principal's bearer token (the key API) and S3 key ID (the S3
// API); its S3 secret is made up for each gateway.
const (
	token = "s3-clients-token"
	keyID = "ZARRGWTESTKEY"
)

// gateway is a running `zarrgw serve` with its key API and S3 API on free
// loopback ports.
type gateway struct {
	keys    string // http://127.0.0.1:PORT, the key and array API
	s3      string // http://127.0.0.1:PORT, the S3 API
	s3Addr  string // 127.0.0.1:PORT
	region  string
	secret  string // the principal's S3 secret
	root    string // the fs store's directory
	config  string // the configuration file
	env     []string
	cmd     *exec.Cmd
	log     *servers.Log
	stopped bool
}

// dataset declares a dataset of the test principal: name over store
// (store.fs.local when empty) below prefix (the name when empty).
type dataset struct{ name, store, prefix string }

type options struct {
	region   string    // "eu-test-1" when empty
	stores   string    // store blocks beside store.fs.local
	datasets []dataset // one "data" on the filesystem when nil
	env      []string  // the gateway's environment beyond the test's
	// bucketsFrom makes buckets below ROOT/made for the principal.
	bucketsFrom bool
}

// startGateway serves a configuration of o until the test ends.
func startGateway(t *testing.T, o options) *gateway {
	t.Helper()
	if o.region == "" {
		o.region = "eu-test-1"
	}
	if o.datasets == nil {
		o.datasets = []dataset{{name: "data"}}
	}
	g := &gateway{root: t.TempDir(), region: o.region, secret: randomHex(20), log: &servers.Log{}}
	sum := sha256.Sum256([]byte(token))
	var c strings.Builder
	fmt.Fprintf(&c, `variable "s3_secret" {
  env = "ZARRGW_TEST_S3_SECRET"
}
store "fs" "local" {
  root = %q
}
%s
principal "tester" {
  token_sha256         = %q
  s3_access_key_id     = %q
  s3_secret_access_key = var.s3_secret
}
`, g.root, o.stores, hex.EncodeToString(sum[:]), keyID)
	for _, d := range o.datasets {
		if d.store == "" {
			d.store = "store.fs.local"
		}
		if d.prefix == "" {
			d.prefix = d.name
		}
		fmt.Fprintf(&c, `dataset %q {
  store  = %s
  prefix = %q
  access {
    read  = ["tester"]
    write = ["tester"]
  }
}
`, d.name, d.store, d.prefix)
	}
	buckets := ""
	if o.bucketsFrom {
		os.MkdirAll(filepath.Join(g.root, "made"), 0o755)
		fmt.Fprintf(&c, "store \"fs\" \"made\" {\n  root = %q\n}\n", filepath.Join(g.root, "made"))
		buckets = `
    buckets_from    = "store.fs.made"
    bucket_access {
      read  = ["tester"]
      write = ["tester"]
    }`
	}
	fmt.Fprintf(&c, `server {
  listen           = "127.0.0.1:0"
  max_request_size = "128MiB"
  s3 {
    listen          = "127.0.0.1:0"
    region          = %q
    max_object_size = "256MiB"%s
  }
}
`, o.region, buckets)
	g.config = filepath.Join(t.TempDir(), "zarrgw.hcl")
	if err := os.WriteFile(g.config, []byte(c.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	g.env = append(append(os.Environ(), o.env...), "ZARRGW_TEST_S3_SECRET="+g.secret)
	g.cmd = exec.Command(zarrgw, "serve", "-c", g.config)
	g.cmd.Env = g.env
	pipe, err := g.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := g.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	keysLine := regexp.MustCompile(`zarrgw: serving \d+ datasets at (http://[0-9.:]+)/d/`)
	s3Line := regexp.MustCompile(`zarrgw: S3 API at http://([0-9.:]+) `)
	found := make(chan [2]string, 1)
	go func() {
		var keys string
		sc := bufio.NewScanner(pipe)
		sc.Buffer(make([]byte, 1<<16), 1<<20)
		for sc.Scan() {
			line := sc.Text()
			fmt.Fprintln(g.log, line)
			if m := keysLine.FindStringSubmatch(line); m != nil {
				keys = m[1]
			}
			if m := s3Line.FindStringSubmatch(line); m != nil {
				found <- [2]string{keys, m[1]}
			}
		}
	}()
	t.Cleanup(func() { g.stop(t) })
	select {
	case u := <-found:
		g.keys, g.s3Addr, g.s3 = u[0], u[1], "http://"+u[1]
	case <-time.After(30 * time.Second):
		t.Fatalf("zarrgw serve did not start within 30s; its log:\n%s", g.log)
	}
	return g
}

// stop ends the gateway by its PID: SIGTERM, then SIGKILL after a minute (longer than the default shutdown_timeout, 30s, that a request in flight may take).
func (g *gateway) stop(t *testing.T) {
	if g.stopped {
		return
	}
	g.stopped = true
	bin.Stop(t, g.cmd, g.log)
	if os.Getenv("ZARRGW_DUMP_LOG") != "" {
		os.WriteFile(os.Getenv("ZARRGW_DUMP_LOG"), []byte(g.log.String()), 0o644)
	}
	if t.Failed() {
		t.Logf("the gateway's log (last 30 lines):\n%s", tail(g.log.String(), 30))
	}
}

// awaitRequests counts the gateway's access-log records of S3 requests
// (not the key API's) of method on dataset's key, once there are want of
// them or a minute has passed: a record is written after its response is
// sent and read from the gateway's stderr after that, so a client can be
// done before the last of its records is here.
func (g *gateway) awaitRequests(method, ds, key string, want int) int {
	n := g.requests(method, ds, key)
	for deadline := time.Now().Add(time.Minute); n < want && time.Now().Before(deadline); n = g.requests(method, ds, key) {
		time.Sleep(10 * time.Millisecond)
	}
	return n
}

// requests counts the access-log records awaitRequests waits for.
func (g *gateway) requests(method, ds, key string) int {
	n := 0
	for _, line := range strings.Split(g.log.String(), "\n") {
		if strings.Contains(line, `"method":"`+method+`","path":"/`+ds+`/`) && strings.Contains(line, `"dataset":"`+ds+`"`) &&
			strings.Contains(line, `"key":"`+key+`"`) {
			n++
		}
	}
	return n
}

func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// keyURL is a key's URL in the key API; each segment escaped.
func (g *gateway) keyURL(ds, key string) string {
	segs := strings.Split(key, "/")
	for i, s := range segs {
		segs[i] = pathEscape(s)
	}
	return g.keys + "/d/" + ds + "/" + strings.Join(segs, "/")
}

// pathEscape escapes a path segment, spaces and '+' included.
func pathEscape(s string) string {
	var b strings.Builder
	for _, c := range []byte(s) {
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("-._~", c) >= 0 {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

// fetch answers a request of the key API with the principal's token.
func (g *gateway) fetch(t *testing.T, method, url string, body []byte) (int, []byte) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, rd)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	return resp.StatusCode, b
}

// putKey stores a value through the key API.
func (g *gateway) putKey(t *testing.T, ds, key string, value []byte) {
	t.Helper()
	if code, b := g.fetch(t, http.MethodPut, g.keyURL(ds, key), value); code/100 != 2 {
		t.Fatalf("PUT /d/%s/%s: %d %s", ds, key, code, b)
	}
}

// putTree stores every file of a tree through the key API, below prefix.
func (g *gateway) putTree(t *testing.T, ds, prefix string, files map[string][]byte) {
	t.Helper()
	for k, v := range files {
		g.putKey(t, ds, prefix+k, v)
	}
}

// checkKeys reads every file of a tree back through the key API, below
// prefix, and fails unless each is byte for byte what was uploaded.
func (g *gateway) checkKeys(t *testing.T, ds, prefix string, files map[string][]byte) {
	t.Helper()
	for k, want := range files {
		code, got := g.fetch(t, http.MethodGet, g.keyURL(ds, prefix+k), nil)
		if code != http.StatusOK {
			t.Errorf("GET /d/%s/%s through the key API: %d %s", ds, prefix+k, code, got)
			continue
		}
		if !bytes.Equal(got, want) {
			t.Errorf("GET /d/%s/%s through the key API: %d bytes (sha256 %x), uploaded %d (sha256 %x)",
				ds, prefix+k, len(got), sha256.Sum256(got), len(want), sha256.Sum256(want))
		}
	}
}

// checkAbsent fails unless each key is 404 through the key API.
func (g *gateway) checkAbsent(t *testing.T, ds string, keys ...string) {
	t.Helper()
	for _, k := range keys {
		if code, b := g.fetch(t, http.MethodGet, g.keyURL(ds, k), nil); code != http.StatusNotFound {
			t.Errorf("GET /d/%s/%s after its deletion: %d %.200s, want 404", ds, k, code, b)
		}
	}
}

// clientEnv is the environment of a client process: the test's without
// any AWS_ variable (a CA bundle or credentials of the machine would
// change what the client does), HOME in a directory of the test's own, and
// extra.
func clientEnv(t *testing.T, extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "AWS_") || strings.HasPrefix(kv, "HOME=") || strings.HasPrefix(kv, "BOTO_") {
			continue
		}
		env = append(env, kv)
	}
	return append(append(env, "HOME="+t.TempDir()), extra...)
}

// result is what a client process did.
type result struct {
	code           int
	stdout, stderr string
}

// run runs a client with env in dir (the test's temporary directory when
// empty) and returns what it did; it fails the test only when the process
// cannot be run or runs past five minutes.
func run(t *testing.T, env []string, dir string, name string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = env
	cmd.Dir = dir
	if dir == "" {
		cmd.Dir = t.TempDir()
	}
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	r := result{stdout: o.String(), stderr: e.String()}
	if ctx.Err() != nil {
		t.Fatalf("%s %s: still running after 5 minutes; stderr:\n%s", name, strings.Join(args, " "), tail(r.stderr, 20))
	}
	if ee, ok := err.(*exec.ExitError); ok {
		r.code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return r
}

// mustRun runs a client and fails the test unless it exits 0.
func mustRun(t *testing.T, env []string, dir string, name string, args ...string) result {
	t.Helper()
	r := run(t, env, dir, name, args...)
	if r.code != 0 {
		t.Fatalf("%s %s: exit %d\nstdout:\n%s\nstderr:\n%s", filepath.Base(name), strings.Join(args, " "), r.code,
			tail(r.stdout, 20), tail(r.stderr, 20))
	}
	return r
}

// writeTree writes files below dir.
func writeTree(t *testing.T, dir string, files map[string][]byte) {
	t.Helper()
	for k, v := range files {
		p := filepath.Join(dir, filepath.FromSlash(k))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, v, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// readTree maps every file below dir to its bytes.
func readTree(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// sameTree fails unless got holds exactly the files of want.
func sameTree(t *testing.T, what string, got, want map[string][]byte) {
	t.Helper()
	for k, v := range want {
		if g, ok := got[k]; !ok {
			t.Errorf("%s: %s is missing", what, k)
		} else if !bytes.Equal(g, v) {
			t.Errorf("%s: %s has %d bytes that differ from the %d uploaded", what, k, len(g), len(v))
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("%s: %s was not uploaded", what, k)
		}
	}
}
