package telemetry_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/zarrgw/zarrgw/core/array"
	"github.com/zarrgw/zarrgw/core/meta"
	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/host/internal/telemetry"
	ptel "github.com/zarrgw/zarrgw/pluginapi/telemetry"
	"github.com/zarrgw/zarrgw/tests/support/servers"
)

// traced turns traces on for the test with W3C propagation, recording
// spans in memory.
func traced(t *testing.T) *tracetest.SpanRecorder {
	t.Helper()
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	t.Cleanup(ptel.Enable(tp, propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})))
	t.Cleanup(func() { tp.Shutdown(context.Background()) })
	return rec
}

func attr(s sdktrace.ReadOnlySpan, key string) string {
	for _, a := range s.Attributes() {
		if string(a.Key) == key {
			return a.Value.Emit()
		}
	}
	return ""
}

// A request carrying a traceparent continues the client's trace: the
// server span is the child of the client's span, named after the method
// until the gateway renames it, with the request's method, path and
// client, and never its query; a 5xx marks it failed.
func TestStartRequestContinuesTheClientsTrace(t *testing.T) {
	rec := traced(t)
	const traceID, parentID = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
	r := httptest.NewRequest(http.MethodGet, "http://gw.example:8080/d/era5/t2m/c/0/0?X-Amz-Signature=secret", nil)
	r.Header.Set("traceparent", "00-"+traceID+"-"+parentID+"-01")
	r.Header.Set("User-Agent", "zarr-python")
	ctx, span := telemetry.StartRequest(r)
	if trace.SpanFromContext(ctx) != span {
		t.Error("the returned context does not carry the span")
	}
	span.SetName("key:Get")
	telemetry.EndRequest(span, http.StatusServiceUnavailable)

	spans := rec.Ended()
	if len(spans) != 1 {
		t.Fatalf("%d spans, want 1", len(spans))
	}
	s := spans[0]
	if s.SpanContext().TraceID().String() != traceID || s.Parent().SpanID().String() != parentID || !s.Parent().IsRemote() {
		t.Errorf("span in trace %s with parent %s (remote %v), want the client's %s and %s",
			s.SpanContext().TraceID(), s.Parent().SpanID(), s.Parent().IsRemote(), traceID, parentID)
	}
	if s.Name() != "key:Get" || s.SpanKind() != trace.SpanKindServer {
		t.Errorf("span %q of kind %s, want key:Get, server", s.Name(), s.SpanKind())
	}
	for k, want := range map[string]string{
		"http.request.method":       "GET",
		"url.path":                  "/d/era5/t2m/c/0/0",
		"url.scheme":                "http",
		"server.address":            "gw.example",
		"server.port":               "8080",
		"client.address":            "192.0.2.1", // httptest's
		"user_agent.original":       "zarr-python",
		"http.response.status_code": "503",
	} {
		if got := attr(s, k); got != want {
			t.Errorf("%s = %q, want %q", k, got, want)
		}
	}
	for _, a := range s.Attributes() {
		if strings.Contains(a.Value.Emit(), "secret") {
			t.Errorf("the query reached the span: %s = %s", a.Key, a.Value.Emit())
		}
	}
	if s.Status().Code != codes.Error {
		t.Errorf("a 503's span is not failed: %v", s.Status())
	}
}

// Without a traceparent the request starts a trace; a 4xx is the client's
// doing and does not fail the span; a method HTTP does not define does
// not name it.
func TestStartRequestStartsATrace(t *testing.T) {
	rec := traced(t)
	r := httptest.NewRequest("BREW", "/d/x", nil)
	_, span := telemetry.StartRequest(r)
	telemetry.EndRequest(span, http.StatusNotFound)
	s := rec.Ended()[0]
	if s.Parent().IsValid() {
		t.Errorf("a request without traceparent has parent %s", s.Parent().SpanID())
	}
	if s.Status().Code == codes.Error {
		t.Error("a 404's span is failed")
	}
	if s.Name() != "HTTP" || attr(s, "http.request.method") != "_OTHER" {
		t.Errorf("method BREW: span %q, http.request.method %q", s.Name(), attr(s, "http.request.method"))
	}
}

// With traces off, StartRequest hands back the request's own context and
// a span that records nothing, allocating nothing.
func TestStartRequestOff(t *testing.T) {
	if telemetry.Enabled() {
		t.Fatal("traces on at the start")
	}
	r := httptest.NewRequest(http.MethodGet, "/d/x", nil)
	r.Header.Set("traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
	ctx, span := telemetry.StartRequest(r)
	if ctx != r.Context() || span.IsRecording() || span.SpanContext().IsValid() {
		t.Errorf("off: context changed %v, span recording %v, valid %v", ctx != r.Context(), span.IsRecording(), span.SpanContext().IsValid())
	}
	if n := testing.AllocsPerRun(100, func() {
		_, span := telemetry.StartRequest(r)
		span.SetName("key:Get")
		telemetry.EndRequest(span, 200)
	}); n > 0 {
		t.Errorf("a request's span costs %v allocations with traces off", n)
	}
}

// Transformers named in array metadata are wrapped as their layer.
func TestTransformersWrapped(t *testing.T) {
	rec := traced(t)
	r := telemetry.Transformers(resolver(func(next store.Store) store.Store { return next }))
	s, err := r.Transformer(t.Context(), meta.Extension{Name: "sharding"}, store.NewMemory(), nil, "a")
	if err != nil {
		t.Fatal(err)
	}
	s.Stat(t.Context(), "k")
	if spans := rec.Ended(); len(spans) != 1 || attr(spans[0], ptel.AttrStoreLayer) != "sharding" {
		t.Errorf("spans %v, want one of layer sharding", spans)
	}
	o := telemetry.ArrayOptions(array.Options{})
	if o.Codecs != nil || o.Transformers != nil {
		t.Error("ArrayOptions made resolvers where there were none")
	}
}

type resolver func(next store.Store) store.Store

func (f resolver) Transformer(_ context.Context, _ meta.Extension, next store.Store, _ *meta.ArrayMeta, _ string) (store.Store, error) {
	return f(next), nil
}

// Setup exports to the endpoint as the service it is given: the request
// span and a store call below it arrive in one trace when the shutdown
// flushes them.
func TestSetupExports(t *testing.T) {
	for _, kv := range os.Environ() {
		if name, _, _ := strings.Cut(kv, "="); strings.HasPrefix(name, "OTEL_") {
			t.Setenv(name, "")
		}
	}
	recv := servers.StartOTLP(t)
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", recv.Endpoint)
	shutdown, err := telemetry.Setup(t.Context(), "zarrgw")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { shutdown(context.Background()) })
	if !telemetry.Enabled() {
		t.Fatal("not enabled with an endpoint")
	}
	ctx, span := telemetry.StartRequest(httptest.NewRequest(http.MethodGet, "/d/x/k", nil))
	telemetry.Store(store.NewMemory(), "memory").Get(ctx, "k", store.ByteRange{})
	telemetry.EndRequest(span, http.StatusNotFound)
	if err := shutdown(t.Context()); err != nil {
		t.Fatal(err)
	}
	spans := recv.Spans()
	if len(spans) != 2 {
		t.Fatalf("received %v, want the request's span and the store's", spans)
	}
	req, get := spans[1], spans[0] // the store's ends first
	if req.Name != "GET" || get.Name != "store.Get" || get.ParentID != req.SpanID || get.TraceID != req.TraceID {
		t.Errorf("received %v, want store.Get below GET", spans)
	}
	if req.Service != "zarrgw" || get.Attributes[ptel.AttrStoreFound] != false || get.Failed {
		t.Errorf("service %q, store span %v", req.Service, get)
	}
}
