package gateway_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/zarrgw/zarrgw/host/runtime/config"
	"github.com/zarrgw/zarrgw/host/runtime/registry"
	"github.com/zarrgw/zarrgw/host/runtime/stack"
	"github.com/zarrgw/zarrgw/host/serve/gateway"
)

// abortConfig serves ROOT through a cache, so that values are read from
// the store piece by piece (not sent from their files), on both faces.
const abortConfig = `
store "fs" "local" {
  root = "ROOT"
}
dataset "data" {
  store = store.fs.local
  transformer "cache" {
    memory = "1MiB"
  }
  access {
    read = ["*"]
  }
}
server {
  listen = "127.0.0.1:0"
  s3 {
    listen = "127.0.0.1:0"
    region = "eu-test-1"
  }
}
`

// readsFail fails the store reads of key from the from-th on. A value
// larger than one piece is read once as if it were small (getSmall), then
// piece by piece: from 2 fails its first piece, before its status is
// sent; from 3 its second, after.
type readsFail struct {
	key   string
	from  int
	mu    sync.Mutex
	reads int
}

func (f *readsFail) hook(ctx context.Context, op, key string, call func(context.Context) error) error {
	if op == "get" && strings.HasSuffix(key, f.key) {
		f.mu.Lock()
		f.reads++
		n := f.reads
		f.mu.Unlock()
		if n >= f.from {
			return errors.New("backend down")
		}
	}
	return call(ctx)
}

// abortGateway serves abortConfig over a directory holding "big", a
// value of more than one piece, whose store reads fail from the from-th
// on; it returns the URL of the value on face "key", "key-h2" (over TLS
// and HTTP/2) or "s3", a client of it, the key API's URL and the
// gateway's log.
func abortGateway(t *testing.T, face string, from int) (url string, client *http.Client, keys string, log *syncBuffer) {
	t.Helper()
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "big"), bytes.Repeat([]byte("0123456789abcdef"), 5<<20/16), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, diags := config.Parse([]byte(strings.Replace(abortConfig, "ROOT", root, 1)), "/etc/zarrgw/abort.hcl", registry.Bundled().Catalog())
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	host, err := stack.Start(cfg, registry.Bundled(), slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { host.Close() })
	log = &syncBuffer{}
	fails := &readsFail{key: "big", from: from}
	g, err := gateway.New(context.Background(), cfg, host, gateway.Options{
		Logger: slog.New(slog.NewJSONHandler(log, nil)), StoreHook: fails.hook})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(g.Close)
	srv := httptest.NewServer(g)
	t.Cleanup(srv.Close)
	switch face {
	case "key":
		return srv.URL + "/d/data/big", http.DefaultClient, srv.URL, log
	case "key-h2":
		h2 := httptest.NewUnstartedServer(g)
		h2.EnableHTTP2 = true
		h2.StartTLS()
		t.Cleanup(h2.Close)
		return h2.URL + "/d/data/big", h2.Client(), srv.URL, log
	}
	s3 := httptest.NewServer(g.S3Handler())
	t.Cleanup(s3.Close)
	return s3.URL + "/data/big", http.DefaultClient, srv.URL, log
}

// A value whose store fails after its status was sent, through the key
// API and S3's GetObject: the client's read of the body fails (it never
// takes the short body for the value), and the access log records the
// status sent, the error and "aborted", and the metrics count it.
func TestValueFailingMidStreamIsAborted(t *testing.T) {
	for _, face := range []string{"key", "key-h2", "s3"} {
		t.Run(face, func(t *testing.T) {
			url, client, keys, log := abortGateway(t, face, 3)
			resp, err := client.Get(url)
			if err != nil {
				t.Fatal(err)
			}
			got, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK || err == nil {
				t.Fatalf("GET %s (%s): status %d, %d bytes, read error %v: want 200 and a failed read of the body",
					url, resp.Proto, resp.StatusCode, len(got), err)
			}
			if face == "key-h2" && resp.ProtoMajor != 2 {
				t.Fatalf("GET %s: %s, want HTTP/2", url, resp.Proto)
			}
			rec := abortedRecord(t, log.String())
			if rec.Status != http.StatusOK || !strings.Contains(rec.Error, "backend down") {
				t.Fatalf("access log record of the aborted response: %+v; the log:\n%s", rec, log)
			}
			page := getText(t, keys+"/metrics")
			if !regexp.MustCompile(`(?m)^zarrgw_http_responses_aborted_total\{dataset="data",operation="[^"]+"\} 1$`).MatchString(page) {
				t.Fatalf("/metrics does not count the aborted response:\n%s", grepLines(page, "aborted"))
			}
		})
	}
}

// A value whose first piece cannot be read is an error status whose
// body is whole: the value's length, set before the read, is not sent
// with it (a client would wait for bytes that never come, and fail
// without the reason).
func TestValueFailingFirstIsAnError(t *testing.T) {
	for _, face := range []string{"key", "key-h2", "s3"} {
		t.Run(face, func(t *testing.T) {
			url, client, _, log := abortGateway(t, face, 2)
			resp, err := client.Get(url)
			if err != nil {
				t.Fatal(err)
			}
			body, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode < 500 || err != nil || resp.ContentLength >= 0 && resp.ContentLength != int64(len(body)) {
				t.Fatalf("GET %s: status %d, Content-Length %d, %d bytes read, read error %v: want an error status with its whole body",
					url, resp.StatusCode, resp.ContentLength, len(body), err)
			}
			if strings.Contains(log.String(), `"aborted"`) {
				t.Fatalf("an error answered with its status is logged as aborted:\n%s", log)
			}
		})
	}
}

// getText is the body of a GET of url.
func getText(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	return string(b)
}

// accessRecord is what the tests read of an access log record.
type accessRecord struct {
	Msg     string `json:"msg"`
	Status  int    `json:"status"`
	Error   string `json:"error"`
	Aborted bool   `json:"aborted"`
}

// abortedRecord is the one access log record of an aborted response.
func abortedRecord(t *testing.T, log string) accessRecord {
	t.Helper()
	var found []accessRecord
	for _, line := range strings.Split(log, "\n") {
		var rec accessRecord
		if json.Unmarshal([]byte(line), &rec) == nil && rec.Msg == "request" && rec.Aborted {
			found = append(found, rec)
		}
	}
	if len(found) != 1 {
		t.Fatalf("%d access log records with \"aborted\": true, want 1; the log:\n%s", len(found), log)
	}
	return found[0]
}
