package telemetry

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	bin "github.com/zarrgw/zarrgw/tests/support/binary"
	"github.com/zarrgw/zarrgw/tests/support/servers"
)

// pluginName is the plugin block's source address: the service.name of
// the plugin's spans.
const pluginName = "zarrgw.dev/test/fs"

// hostService is the service.name the gateway's spans carry.
const hostService = "zarrgw"

// wait bounds every wait for spans: generous, since a wait ends as soon
// as they come.
const wait = time.Minute

// gateway is a running `zarrgw serve`.
type gateway struct{ *bin.Gateway }

// startGateway serves one read-only dataset "d" of an fs store whose
// files are files, the store running out of process in a plugin
// (zarrgw re-executed as `zarrgw plugin serve fs`), with the machine's
// OTEL_* variables emptied (an empty variable counts as unset) and then
// otel set. It stops when the test ends, if the test has not stopped it.
func startGateway(t *testing.T, files map[string]string, otel ...string) *gateway {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	sum, err := sha256File(zarrgwBin)
	if err != nil {
		t.Fatal(err)
	}
	config := filepath.Join(t.TempDir(), "zarrgw.hcl")
	src := fmt.Sprintf(`
plugin %q {
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
`, pluginName, zarrgwBin, sum, dir)
	if err := os.WriteFile(config, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	var env []string
	for _, kv := range os.Environ() {
		if name, _, _ := strings.Cut(kv, "="); strings.HasPrefix(name, "OTEL_") {
			env = append(env, name+"=")
		}
	}
	return &gateway{bin.Serve(t, zarrgwBin, config, append(env, otel...)...)}
}

// stop ends the gateway (SIGTERM), which ends its plugin first; both send
// the spans they hold on the way out.
func (g *gateway) stop(t *testing.T) { g.Stop(t) }

// get reads a key of dataset d, with the headers given.
func (g *gateway) get(t *testing.T, key string, header map[string]string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, g.URL+"/d/d/"+key, nil)
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", key, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

func sha256File(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// readTrace is what one GET of key "k" leaves in the receiver: the
// request's span, the store's span below it, and the plugin's spans below
// that.
type readTrace struct {
	request, storeCall servers.Span
	plugin             []servers.Span
}

// findRead looks among spans for the trace of the GET of "k": a server
// span of the gateway named key:Get in trace traceID, a span of the
// gateway's fs store reading "k" descending from it, and spans the
// plugin exported descending from that one, the plugin's own store.Get*
// among them.
func findRead(spans []servers.Span, traceID string) (readTrace, bool) {
	var r readTrace
	in := servers.Trace(spans, traceID)
	for _, s := range in {
		if s.Service == hostService && s.Name == "key:Get" && s.Kind == "SPAN_KIND_SERVER" {
			r.request = s
		}
	}
	if r.request.SpanID == "" {
		return r, false
	}
	for _, s := range in {
		if s.Service == hostService && strings.HasPrefix(s.Name, "store.Get") &&
			s.Attributes["zarrgw.store.layer"] == "fs" && s.Attributes["zarrgw.store.key"] == "k" &&
			servers.Descends(in, s, r.request) {
			r.storeCall = s
		}
	}
	if r.storeCall.SpanID == "" {
		return r, false
	}
	ownOp := false
	for _, s := range in {
		if s.Service == pluginName && servers.Descends(in, s, r.storeCall) {
			r.plugin = append(r.plugin, s)
			ownOp = ownOp || strings.HasPrefix(s.Name, "store.Get") && s.Attributes["zarrgw.store.key"] == "k"
		}
	}
	return r, ownOp
}

// One GET through the gateway, whose store runs in a plugin, is one trace
// across both processes: the client's trace continued by the gateway's
// request span, the gateway's store call below it, and below that the
// plugin's spans (its gRPC server span and its own store.Get), exported
// by the plugin under its own name.
func TestReadTracedAcrossThePlugin(t *testing.T) {
	recv := servers.StartOTLP(t)
	g := startGateway(t, map[string]string{"k": "value"},
		"OTEL_EXPORTER_OTLP_ENDPOINT="+recv.Endpoint,
		"OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf",
		"OTEL_BSP_SCHEDULE_DELAY=100", // spans leave within a moment, not 5 s
	)
	traceID, parentID := randomHex(16), randomHex(8)
	code, body := g.get(t, "k", map[string]string{"traceparent": "00-" + traceID + "-" + parentID + "-01"})
	if code != http.StatusOK || body != "value" {
		t.Fatalf("GET k: %d %q", code, body)
	}
	spans := recv.WaitFor(t, wait, "trace of the GET with the plugin's spans below the store call", func(spans []servers.Span) bool {
		_, ok := findRead(spans, traceID)
		return ok
	})
	r, _ := findRead(spans, traceID)
	for _, s := range servers.Trace(spans, traceID) {
		t.Logf("%s", s)
	}
	if r.request.ParentID != parentID {
		t.Errorf("the request span's parent is %q, want the client's span %s", r.request.ParentID, parentID)
	}
	server := false
	for _, s := range r.plugin {
		server = server || s.Kind == "SPAN_KIND_SERVER" && strings.HasPrefix(s.Name, "zarrgw.v1.Store/")
	}
	if !server {
		t.Errorf("no gRPC server span among the plugin's: %v", r.plugin)
	}
	for _, s := range servers.Trace(spans, traceID) {
		if s.Failed {
			t.Errorf("span failed in a successful read: %s", s)
		}
	}
	if bad := recv.Refused(); len(bad) > 0 {
		t.Errorf("the receiver could not read some exports: %q", bad)
	}
}

// Spans still in the batch when the gateway stops are sent on the way
// out, by the gateway and by its plugin: with a batch delay of an hour,
// nothing leaves before the SIGTERM, and everything is there once the
// gateway has exited (it waits for its plugin to exit).
func TestSpansLeftAreSentAtExit(t *testing.T) {
	recv := servers.StartOTLP(t)
	g := startGateway(t, map[string]string{"k": "value"},
		"OTEL_EXPORTER_OTLP_ENDPOINT="+recv.Endpoint,
		"OTEL_BSP_SCHEDULE_DELAY=3600000",
	)
	traceID := randomHex(16)
	if code, _ := g.get(t, "k", map[string]string{"traceparent": "00-" + traceID + "-" + randomHex(8) + "-01"}); code != http.StatusOK {
		t.Fatalf("GET k: %d", code)
	}
	g.stop(t)
	spans := recv.Spans()
	if _, ok := findRead(spans, traceID); !ok {
		t.Errorf("after the gateway exited, the trace of the GET is not complete; %d spans received: %v\ngateway log:\n%s", len(spans), spans, g.Log)
	}
}

// With no OTEL_* variable nothing is exported, not even to the endpoint
// an exporter would use by default: a receiver there gets no request
// from the gateway or its plugin, all the way to their exit. The same
// gateway with only OTEL_TRACES_EXPORTER=otlp exports to that receiver,
// from both processes: the silence is not the receiver's doing.
func TestNothingExportedWhenOff(t *testing.T) {
	recv := servers.StartOTLPAt(t, "127.0.0.1:4318")
	g := startGateway(t, map[string]string{"k": "value"})
	if code, _ := g.get(t, "k", nil); code != http.StatusOK {
		t.Fatalf("GET k: %d", code)
	}
	g.stop(t)
	if n := recv.Requests(); n != 0 {
		t.Fatalf("with no OTEL_* variable, %d exports reached the default endpoint: %v", n, recv.Spans())
	}

	g = startGateway(t, map[string]string{"k": "value"}, "OTEL_TRACES_EXPORTER=otlp")
	if code, _ := g.get(t, "k", nil); code != http.StatusOK {
		t.Fatalf("GET k: %d", code)
	}
	g.stop(t)
	services := map[string]bool{}
	for _, s := range recv.Spans() {
		services[s.Service] = true
	}
	if !services[hostService] || !services[pluginName] {
		t.Errorf("with OTEL_TRACES_EXPORTER=otlp, the default endpoint got spans of %v, want %s's and %s's", services, hostService, pluginName)
	}
}
