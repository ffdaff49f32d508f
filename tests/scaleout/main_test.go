// Package scaleout runs zarrgw as a service is run to scale out: three
// `zarrgw serve` replicas with one configuration, one writable dataset
// over one S3 bucket (versitygw), and nginx in front of them as the load
// balancer (its retry policy is documented on servers.Nginx). It shows
// that
//
//   - reads and compare-and-swap writes (GET, then PUT with If-Match: the
//     ETag read) by concurrent clients through the balancer are
//     linearizable, per key, while a replica is killed and restarted,
//     checked with porcupine; and that the same check finds a gateway
//     that ignores If-Match;
//   - a replica stopped with SIGTERM under load costs no client request
//     (nginx retries what reached a replica that went away), and one
//     killed with SIGKILL and restarted costs no read;
//   - nginx retries reads and unconditional writes and never a
//     conditional one.
//
// Every wait follows progress (a count of operations done, a process
// exited, a configuration served) and is bounded only against a hang;
// no test asserts a duration. Kills come after a number of operations.
package scaleout

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	bin "github.com/zarrgw/zarrgw/tests/support/binary"
	"github.com/zarrgw/zarrgw/tests/support/servers"
)

var zarrgwBin string

func TestMain(m *testing.M) { bin.Main(m, &zarrgwBin) }

// replicas is how many `zarrgw serve` run behind the balancer.
const replicas = 3

// cluster is versitygw with one bucket, the replicas serving dataset "d"
// over it, and nginx in front.
type cluster struct {
	s3       *servers.S3
	replicas []*bin.Gateway
	lb       *servers.Nginx
	token    string
}

// config is every replica's configuration: one dataset over the bucket,
// which the principal "writer" (a bearer token) reads and writes; on a
// shutdown, 2 s of draining (drain_delay: /readyz fails and every answer
// closes its connection while requests are still served) before the
// listener closes.
func config(s3 *servers.S3, bucket, tokenSHA256 string) string {
	return fmt.Sprintf(`
principal "writer" {
  token_sha256 = %q
}
store "s3" "shared" {
  bucket   = %q
  endpoint = %q
}
dataset "d" {
  store = store.s3.shared
  access {
    read  = ["writer"]
    write = ["writer"]
  }
}
server {
  listen           = "127.0.0.1:0"
  drain_delay      = "2s"
  shutdown_timeout = "30s"
}
`, tokenSHA256, bucket, s3.Endpoint)
}

// newCluster starts versitygw, the replicas and nginx over them.
func newCluster(t *testing.T, opts servers.NginxOptions) *cluster {
	t.Helper()
	s3 := servers.StartS3(t)
	secret := make([]byte, 24)
	rand.Read(secret)
	c := &cluster{s3: s3, token: hex.EncodeToString(secret)}
	sum := sha256.Sum256([]byte(c.token))
	file := filepath.Join(t.TempDir(), "zarrgw.hcl")
	if err := os.WriteFile(file, []byte(config(s3, s3.NewBucket(t), hex.EncodeToString(sum[:]))), 0o600); err != nil {
		t.Fatal(err)
	}
	env := []string{"AWS_ACCESS_KEY_ID=" + s3.AccessKey, "AWS_SECRET_ACCESS_KEY=" + s3.SecretKey, "AWS_REGION=" + s3.Region}
	for range replicas {
		c.replicas = append(c.replicas, bin.Serve(t, zarrgwBin, file, env...))
	}
	c.stopTogether(t)
	t.Cleanup(func() {
		if t.Failed() {
			for i, g := range c.replicas {
				t.Logf("replica %d's log, the last lines:\n%s", i, tail(g.Log.String(), 3000))
			}
		}
	})
	c.lb = servers.StartNginx(t, c.addrs(), opts)
	return c
}

// addrs are the replicas' host:port, for the balancer.
func (c *cluster) addrs() []string {
	out := make([]string, len(c.replicas))
	for i, g := range c.replicas {
		out[i] = strings.TrimPrefix(g.URL, "http://")
	}
	return out
}

// kill ends replica i with SIGKILL and returns once it has exited.
func (c *cluster) kill(t *testing.T, i int) {
	t.Helper()
	c.replicas[i].Kill(t)
}

// start starts replica i again, on a new port (nginx is not told).
func (c *cluster) start(t *testing.T, i int) {
	t.Helper()
	c.replicas[i].Start(t)
	c.stopTogether(t)
}

// restart starts replica i again and has nginx balance over the
// replicas' new addresses.
func (c *cluster) restart(t *testing.T, i int, opts servers.NginxOptions) {
	t.Helper()
	c.start(t, i)
	c.lb.Reconfigure(t, c.addrs(), opts)
}

// stopTogether has the replicas stopped together when the test ends
// (SIGTERM, each draining for drain_delay), rather than one after the
// other. Registered after each start, so that it runs before the
// replicas' own stops, which then find them stopped.
func (c *cluster) stopTogether(t *testing.T) {
	t.Cleanup(func() {
		var wg sync.WaitGroup
		for _, g := range c.replicas {
			wg.Go(func() { g.Stop(t) })
		}
		wg.Wait()
	})
}

// httpClient is the clients' HTTP client: keep-alive connections to
// nginx, a deadline on every request against a hang.
var httpClient = &http.Client{
	Transport: &http.Transport{MaxIdleConnsPerHost: 32, DisableCompression: true},
	Timeout:   time.Minute,
}

// answer is what a request got: a status, or err when no answer came
// (the connection failed or broke).
type answer struct {
	status int
	body   []byte
	etag   string
	err    error
}

// do sends a request of the key API with the writer's token to base
// (the balancer or a replica) and reads the whole answer.
func (c *cluster) do(base, method, key string, body []byte, header ...string) answer {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequest(method, base+"/d/d/"+key, rd)
	if err != nil {
		return answer{err: err}
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := httpClient.Do(req)
	if err != nil {
		return answer{err: err}
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	return answer{status: resp.StatusCode, body: data, etag: resp.Header.Get("ETag"), err: err}
}

// put writes key through base, fails the test unless it is stored, and
// returns the ETag.
func (c *cluster) put(t *testing.T, base, key string, value []byte) string {
	t.Helper()
	a := c.do(base, http.MethodPut, key, value)
	if a.err != nil || a.status/100 != 2 {
		t.Fatalf("PUT %s: %d %v %s", key, a.status, a.err, a.body)
	}
	return a.etag
}

// waitUntil polls cond until it holds; past bound (only a hang reaches
// it) the test fails.
func waitUntil(t *testing.T, what string, bound time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(bound)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %v", what, bound)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

func tail(s string, n int) string {
	if len(s) > n {
		s = "..." + s[len(s)-n:]
	}
	return strings.TrimSpace(s)
}
