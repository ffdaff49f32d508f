package telemetry

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	bin "github.com/zarrgw/zarrgw/tests/support/binary"
	"github.com/zarrgw/zarrgw/tests/support/servers"
)

// uploadSize is larger than the whole budget of bodies below: it can only
// be taken by streaming it into the store's files.
const uploadSize = 64 << 20

// With traces on, an upload into a dataset on the fs store (in process)
// still streams into its files: a PUT four times larger than body_memory
// is stored (held in memory, it would be refused with 413), its trace
// shows the fs store's store.SetFrom with every byte, and the value is
// read back whole, sent from its file (store.OpenFile).
func TestTracedUploadStreams(t *testing.T) {
	recv := servers.StartOTLP(t)
	dir := t.TempDir()
	config := filepath.Join(dir, "zarrgw.hcl")
	src := fmt.Sprintf(`
store "fs" "data" {
  root        = %q
  create_root = true
}
dataset "w" {
  store = store.fs.data
  access {
    read  = ["*"]
    write = ["*"]
  }
}
server {
  listen           = "127.0.0.1:0"
  max_request_size = "128MiB"
  body_memory      = "16MiB"
}
`, filepath.Join(dir, "data"))
	if err := os.WriteFile(config, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	var env []string
	for _, kv := range os.Environ() {
		if name, _, _ := strings.Cut(kv, "="); strings.HasPrefix(name, "OTEL_") {
			env = append(env, name+"=")
		}
	}
	g := bin.Serve(t, zarrgwBin, config, append(env,
		"OTEL_EXPORTER_OTLP_ENDPOINT="+recv.Endpoint,
		"OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf",
		"OTEL_BSP_SCHEDULE_DELAY=100")...)

	value := bytes.Repeat([]byte("0123456789abcdef"), uploadSize/16)
	putID, getID := randomHex(16), randomHex(16)
	status, body := tracedRequest(t, http.MethodPut, g.URL+"/d/w/big", putID, bytes.NewReader(value))
	if status != http.StatusNoContent {
		t.Fatalf("PUT of %d MiB with traces on: %d %s, want 204 (streamed into the fs store's files)", uploadSize>>20, status, body)
	}
	status, body = tracedRequest(t, http.MethodGet, g.URL+"/d/w/big", getID, nil)
	if status != http.StatusOK || body != string(value) {
		t.Fatalf("GET of the value written: %d, %d bytes, want 200 and the %d bytes sent", status, len(body), len(value))
	}
	storeCall := func(trace, name string) func([]servers.Span) (servers.Span, bool) {
		return func(spans []servers.Span) (servers.Span, bool) {
			for _, s := range servers.Trace(spans, trace) {
				if s.Service == hostService && s.Name == name && s.Attributes["zarrgw.store.layer"] == "fs" && s.Attributes["zarrgw.store.key"] == "big" {
					return s, true
				}
			}
			return servers.Span{}, false
		}
	}
	setFrom, openFile := storeCall(putID, "store.SetFrom"), storeCall(getID, "store.OpenFile")
	spans := recv.WaitFor(t, wait, "the fs store's store.SetFrom of the PUT and store.OpenFile of the GET", func(spans []servers.Span) bool {
		_, put := setFrom(spans)
		_, get := openFile(spans)
		return put && get
	})
	put, _ := setFrom(spans)
	if n := put.Attributes["zarrgw.store.bytes"]; n != int64(uploadSize) || put.Failed {
		t.Errorf("the PUT's store.SetFrom: %s, want %d bytes and no failure", put, uploadSize)
	}
	for _, s := range servers.Trace(spans, putID) {
		if s.Name == "store.Set" {
			t.Errorf("the PUT was stored from memory: %s", s)
		}
	}
}

// tracedRequest sends a request in trace traceID and returns its status
// and body.
func tracedRequest(t *testing.T, method, url, traceID string, body io.Reader) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, url, body)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("traceparent", "00-"+traceID+"-"+randomHex(8)+"-01")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	got, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: reading the answer: %v", method, url, err)
	}
	return resp.StatusCode, string(got)
}
