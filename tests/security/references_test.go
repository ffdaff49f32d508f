package security

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	bin "github.com/zarrgw/zarrgw/tests/support/binary"
	"github.com/zarrgw/zarrgw/tests/support/servers"
)

// A reference set is written by a third party (a data provider's
// kerchunk files): these tests serve sets whose targets reach for what
// the configuration did not declare, and sets whose gen entries ask for
// endless references, through `zarrgw serve`, as an anonymous client.

// secretText is in the files and services a set must not reach.
const secretText = "TOPSECRET-credentials"

// metadataService is a loopback web server standing in for a cloud
// metadata endpoint: it counts every request it gets.
func metadataService(t *testing.T) (url string, requests *atomic.Int64) {
	dir := t.TempDir()
	path := filepath.Join(dir, "latest", "meta-data", "iam")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, path, secretText)
	requests = &atomic.Int64{}
	srv := servers.ServeDir(t, dir, servers.HTTPOptions{Seen: func(*http.Request) { requests.Add(1) }})
	return srv.URL, requests
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func writeSet(t *testing.T, path string, refs map[string]any) {
	t.Helper()
	b, err := json.Marshal(refs)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, path, string(b))
}

// A set served from a web server names a local file, a file:// URL, the
// loopback metadata service and, allowed by name, the same service as
// "localhost" (a name that resolves to loopback); a local set climbs out
// of its directory with "../" and through a symlink. Every such key is
// refused with 502 and nothing is fetched (the service counts no
// request); the answers name the key and neither the target nor what it
// holds, over the key API and the S3 API alike; a target beside the set
// that is missing is a 502 naming the key only; the server's log keeps
// the targets. The set's own values and targets beside it are read.
func TestReferenceTargetsNotDeclaredRefused(t *testing.T) {
	dir := t.TempDir()
	secret := filepath.Join(dir, "secret.txt")
	writeFile(t, secret, secretText)
	metaURL, metaRequests := metadataService(t)
	metaByName := strings.Replace(metaURL, "127.0.0.1", "localhost", 1)

	web := filepath.Join(dir, "web")
	if err := os.MkdirAll(web, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(web, "beside.bin"), "0123456789")
	setServer := servers.ServeDir(t, web, servers.HTTPOptions{})
	remote := map[string]string{
		"local/0":    secret,
		"fileurl/0":  "file://" + secret,
		"loopback/0": metaURL + "/latest/meta-data/iam",
		"byname/0":   metaByName + "/latest/meta-data/iam",
		"missing/0":  "missing.bin",
	}
	refs := map[string]any{"inline/0": "hello", "beside/0": []any{"beside.bin", 2, 3}}
	for key, target := range remote {
		refs[key] = []any{target, 0, 20}
	}
	writeSet(t, filepath.Join(web, "refs.json"), refs)

	sets := filepath.Join(dir, "data", "sets")
	if err := os.MkdirAll(sets, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, filepath.Join(sets, "link.txt")); err != nil {
		t.Fatal(err)
	}
	local := map[string]string{"dotdot/0": strings.Repeat("../", 30) + strings.TrimPrefix(secret, "/"), "up/0": "../../secret.txt", "symlink/0": "link.txt"}
	refs = map[string]any{}
	for key, target := range local {
		refs[key] = []any{target}
	}
	writeSet(t, filepath.Join(sets, "refs.json"), refs)

	config := filepath.Join(dir, "zarrgw.hcl")
	writeFile(t, config, fmt.Sprintf(`store "references" "remote" {
  references    = %q
  allow_targets = [%q]
}
store "references" "local" {
  references = %q
}
dataset "remote" {
  store     = store.references.remote
  read_only = true
}
dataset "local" {
  store     = store.references.local
  read_only = true
}
server {
  listen = "127.0.0.1:0"
  s3 {
    listen = "127.0.0.1:0"
  }
}
`, setServer.URL+"/refs.json", metaByName+"/latest/", filepath.Join(sets, "refs.json")))
	s := bin.ServeS3(t, binary, config)

	for key, want := range map[string]string{"inline/0": "hello", "beside/0": "234"} {
		status, body := getText(t, s.URL+"/d/remote/"+key)
		if status != http.StatusOK || body != want {
			t.Errorf("GET remote %s: %d %q, want 200 %q", key, status, body, want)
		}
	}
	targets := map[string]string{}
	for key, target := range remote {
		targets["remote/"+key] = target
	}
	for key, target := range local {
		targets["local/"+key] = target
	}
	for path, target := range targets {
		_, key, _ := strings.Cut(path, "/")
		for face, url := range map[string]string{"key API": s.URL + "/d/" + path, "S3 API": s.S3URL + "/" + path} {
			status, body := getText(t, url)
			t.Logf("%s GET %s: %d %s", face, path, status, body)
			switch {
			case status != http.StatusBadGateway:
				t.Errorf("%s GET %s (target %s): %d %.200q, want 502", face, path, target, status, body)
			case strings.Contains(body, secretText):
				t.Errorf("%s GET %s: the body holds what the target holds: %.200q", face, path, body)
			case !strings.Contains(body, `"`+key+`"`) && !strings.Contains(body, "<Resource>/"+path+"</Resource>") || strings.Contains(body, target) ||
				strings.Contains(body, strings.TrimPrefix(metaURL, "http://")) || strings.Contains(body, "localhost") ||
				strings.Contains(body, secret) || strings.Contains(body, setServer.URL):
				t.Errorf("%s GET %s: %q, want the key named and not the target", face, path, body)
			}
		}
	}
	if n := metaRequests.Load(); n != 0 {
		t.Errorf("the loopback metadata service got %d requests, want none", n)
	}
	if log := s.Log.String(); !strings.Contains(log, "/latest/meta-data/iam") || !strings.Contains(log, "localhost") {
		t.Errorf("the server's log does not name the refused targets:\n%s", log)
	}
}

// getText GETs url, anonymous, and returns the status and body; a hang
// fails the test at a generous bound.
func getText(t *testing.T, url string) (int, string) {
	t.Helper()
	client := &http.Client{Timeout: 2 * time.Minute}
	resp, err := client.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("GET %s: reading the body: %v", url, err)
	}
	return resp.StatusCode, strings.TrimSpace(string(body))
}

// genBombLimit is the memory a gateway refusing a gen bomb may reach:
// start-up and a parse cut short by the budget (the million references
// the default budget allows take about 300 MiB).
const genBombLimit = 512 << 20

// Gen entries that ask for endless references (a range at the int64
// limit whose step overflows, a range of 5 000 000, 50 entries of 100 000
// each within the budget alone) make `zarrgw serve` refuse the set,
// naming the gen entry, with a peak RSS (the kernel's, of the exited
// process) far below what the references would take; the same set
// within the budget serves.
func TestReferenceGenBombsRefused(t *testing.T) {
	entry := func(key, dimension string) string {
		return fmt.Sprintf(`{"key": %q, "url": "data.bin", "offset": 0, "length": 1, "dimensions": {"i": %s}}`, key, dimension)
	}
	many := make([]string, 50)
	for e := range many {
		many[e] = entry(fmt.Sprintf("m%d/{{i}}", e), `{"stop": 100000}`)
	}
	for name, tc := range map[string]struct{ gen, want string }{
		"overflow":     {entry("o/{{i}}", `{"start": 9223372036854775000, "stop": 9223372036854775807, "step": 100}`) + "," + entry("p/{{i}}", `{"start": -9223372036854775808, "stop": 9223372036854775807}`), `gen entry 1 (key "p/{{i}}")`},
		"five million": {entry("f/{{i}}", `{"stop": 5000000}`), `gen entry 0 (key "f/{{i}}")`},
		"many entries": {strings.Join(many, ","), `gen entry 10 (key "m10/{{i}}")`},
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			writeFile(t, filepath.Join(dir, "data.bin"), "x")
			writeFile(t, filepath.Join(dir, "bomb.json"), `{"version": 1, "refs": {".zgroup": "{\"zarr_format\": 2}"}, "gen": [`+tc.gen+`]}`)
			config := filepath.Join(dir, "zarrgw.hcl")
			writeFile(t, config, `store "references" "bomb" {
  references = "./bomb.json"
}
dataset "bomb" {
  store     = store.references.bomb
  read_only = true
}
server {
  listen = "127.0.0.1:0"
}
`)
			stderr, peak, err := serveUntilExit(t, config, genBombLimit)
			if err == nil || peak > genBombLimit || !strings.Contains(stderr, tc.want) || !strings.Contains(stderr, "max_generated") {
				t.Errorf("serve over the gen bomb: %v, peak RSS %d MiB (bound %d MiB), stderr:\n%.2000s\nwant it refused naming %s",
					err, peak>>20, genBombLimit>>20, stderr, tc.want)
			}
			t.Logf("peak RSS %d MiB", peak>>20)
		})
	}
}

// serveUntilExit runs `zarrgw serve -c config`, which must exit by
// itself: it is killed when its RSS passes limit (the test has failed by
// then, and the machine must keep its memory) or, as a hang, after a
// generous bound. It returns the standard error, the peak RSS the kernel
// counted and how the process ended.
func serveUntilExit(t *testing.T, config string, limit int64) (string, int64, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, "serve", "-c", config, "--listen", "127.0.0.1:0")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	var over int64
	for {
		select {
		case err := <-exited:
			peak := int64(cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss) << 10
			if over > 0 {
				err = errors.Join(err, fmt.Errorf("killed: its RSS reached %d MiB", over>>20))
				peak = max(peak, over)
			}
			if ctx.Err() != nil {
				err = errors.Join(err, fmt.Errorf("killed: still running after %v", 3*time.Minute))
			}
			return stderr.String(), peak, err
		case <-tick.C:
			if rss, err := status(cmd.Process.Pid, "VmRSS"); err == nil && rss > limit && over == 0 {
				over = rss
				cmd.Process.Kill()
			}
		}
	}
}
