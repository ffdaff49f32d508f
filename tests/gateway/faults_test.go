package gateway

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/zarrgw/zarrgw/tests/support/servers"
)

// sha256File is the hex SHA-256 of a file.
func sha256File(t *testing.T, path string) string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h := sha256.New()
	io.Copy(h, f)
	return hex.EncodeToString(h.Sum(nil))
}

// children lists the PIDs whose parent is pid.
func children(t *testing.T, pid int) []int {
	t.Helper()
	out, _ := exec.Command("pgrep", "-P", strconv.Itoa(pid)).Output()
	var pids []int
	for _, f := range strings.Fields(string(out)) {
		if n, err := strconv.Atoi(f); err == nil {
			pids = append(pids, n)
		}
	}
	return pids
}

// A store plugin that dies and cannot start again (its binary replaced):
// requests answer 503 with a reason naming the plugin, never 404; once
// the binary is back, the plugin restarts and requests succeed again.
func TestStorePluginKilled(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(dir+"/k", []byte("value"), 0o644)
	plugin := t.TempDir() + "/zarrgw-plugin"
	original, err := os.ReadFile(binary)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(plugin, original, 0o755); err != nil {
		t.Fatal(err)
	}
	s := startServer(t, fmt.Sprintf(`
plugin "zarrgw.dev/test/fs" {
  path   = %q
  args   = ["plugin", "serve", "--kind", "store", "fs"]
  sha256 = %q
}
store "fs" "data" {
  root = %q
}
dataset "d" {
  store     = store.fs.data
  read_only = true
}
`, plugin, sha256File(t, plugin), dir))
	if code, body := s.get(t, "/d/d/k"); code != 200 || body != "value" {
		t.Fatalf("through the plugin: %d %q", code, body)
	}
	kids := children(t, s.cmd.Process.Pid)
	if len(kids) != 1 {
		t.Fatalf("want one plugin process under the gateway, found %v", kids)
	}
	// the binary changes under it (its checksum no longer matches), then it dies
	if err := os.WriteFile(plugin+".new", []byte("#!/bin/sh\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.Rename(plugin+".new", plugin)
	syscall.Kill(kids[0], syscall.SIGKILL)
	for i := 0; i < 3; i++ {
		code, body := s.get(t, "/d/d/k")
		if code != http.StatusServiceUnavailable || !strings.Contains(body, "zarrgw.dev/test/fs") {
			t.Fatalf("with the plugin gone: %d %q, want 503 naming the plugin", code, body)
		}
	}
	if err := os.WriteFile(plugin+".new", original, 0o755); err != nil {
		t.Fatal(err)
	}
	os.Rename(plugin+".new", plugin)
	deadline := time.Now().Add(60 * time.Second)
	for {
		code, body := s.get(t, "/d/d/k")
		if code == 200 && body == "value" {
			break
		}
		if code == http.StatusNotFound || time.Now().After(deadline) {
			t.Fatalf("after the binary came back: %d %q", code, body)
		}
		time.Sleep(300 * time.Millisecond)
	}
	if k := children(t, s.cmd.Process.Pid); len(k) != 1 || k[0] == kids[0] {
		t.Fatalf("plugin processes after the restart: %v (the killed one was %d)", k, kids[0])
	}
}

// Two gateway processes over one S3 bucket, eight clients writing
// disjoint inner chunks of one shard through the array API (four to each
// gateway): nothing is lost, since every write is a conditional
// read-modify-write on the shard's ETag.
func TestTwoGatewaysOneShard(t *testing.T) {
	srv := servers.StartS3(t)
	bucket := srv.NewBucket(t)
	env := []string{"AWS_ENDPOINT_URL=" + srv.Endpoint, "AWS_ACCESS_KEY_ID=" + srv.AccessKey,
		"AWS_SECRET_ACCESS_KEY=" + srv.SecretKey, "AWS_REGION=" + srv.Region}
	config := fmt.Sprintf(`
store "s3" "shared" {
  bucket = %q
}
dataset "d" {
  store = store.s3.shared
  access {
    read  = ["*"]
    write = ["*"]
  }
}
`, bucket)
	gws := []*server{startServer(t, config, env...), startServer(t, config, env...)}
	meta := `{"zarr_format":3,"node_type":"array","shape":[8,8],"data_type":"uint8",
		"chunk_grid":{"name":"regular","configuration":{"chunk_shape":[8,8]}},"chunk_key_encoding":{"name":"default"},
		"fill_value":0,"codecs":[{"name":"sharding_indexed","configuration":{"chunk_shape":[2,4],
		"codecs":[{"name":"bytes"}],"index_codecs":[{"name":"bytes","configuration":{"endian":"little"}},{"name":"crc32c"}]}}],"attributes":{}}`
	put(t, gws[0].url+"/d/d/a/zarr.json", meta)
	const rounds = 5
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for w := 0; w < 8; w++ {
		wg.Go(func() {
			slice := fmt.Sprintf("%d:%d,%d:%d", (w/2)*2, (w/2)*2+2, (w%2)*4, (w%2)*4+4)
			for r := 1; r <= rounds; r++ {
				body := strings.Repeat(string(rune(w*10+r)), 8)
				if err := tryPut(gws[w%2].url+"/d/d/a?format=raw&slice="+slice, body); err != nil {
					errs <- fmt.Errorf("writer %d round %d: %w", w, r, err)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	_, got := gws[1].get(t, "/d/d/a?format=raw")
	for w := 0; w < 8; w++ {
		for i := 0; i < 2; i++ {
			for j := 0; j < 4; j++ {
				at := ((w/2)*2+i)*8 + (w%2)*4 + j
				if got[at] != byte(w*10+rounds) {
					t.Fatalf("writer %d's last write is lost at element %d (found %d)", w, at, got[at])
				}
			}
		}
	}
}

func put(t *testing.T, u, body string) {
	t.Helper()
	if err := tryPut(u, body); err != nil {
		t.Fatal(err)
	}
}

func tryPut(u, body string) error {
	req, _ := http.NewRequest(http.MethodPut, u, strings.NewReader(body))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("PUT %s: %d %s", u, resp.StatusCode, b)
	}
	return nil
}
