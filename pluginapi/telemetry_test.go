package pluginapi

import (
	"net"
	"path/filepath"
	"testing"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/propagation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/dtype"
	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/core/transformer"
	"github.com/zarrgw/zarrgw/pluginapi/telemetry"
)

// traced turns tracing on for the test, recording spans in memory.
func traced(t *testing.T) *tracetest.SpanRecorder {
	t.Helper()
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	restore := telemetry.Enable(tp, propagation.TraceContext{})
	t.Cleanup(func() {
		restore()
		tp.Shutdown(t.Context())
	})
	return rec
}

// servedWithOptions serves ext on a Unix socket with the protocol's
// server options and returns a client dialled with its dial options: the
// plugin's side and the host's, as a plugin process has them (go-plugin's
// in-process connection uses neither).
func servedWithOptions(t *testing.T, ext Extensions) *Client {
	t.Helper()
	srv, err := newServer(ext)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("unix", filepath.Join(t.TempDir(), "plugin.sock"))
	if err != nil {
		t.Fatal(err)
	}
	g := grpc.NewServer(ServerOptions()...)
	srv.register(nil, g)
	go g.Serve(ln)
	t.Cleanup(g.Stop)
	cc, err := grpc.NewClient("unix://"+ln.Addr().String(), append(DialOptions(), grpc.WithTransportCredentials(insecure.NewCredentials()))...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cc.Close() })
	return NewClient(staticConnector{name: "traced", conn: &Conn{cc: cc}})
}

// spanNamed returns the ended span of that name and kind; the test fails
// if there is not exactly one. A server span ends after its reply is
// sent, so it may end after the client has its answer: the spans are
// awaited (bounded against a hang), never assumed ended.
func spanNamed(t *testing.T, rec *tracetest.SpanRecorder, name string, kind trace.SpanKind) sdktrace.ReadOnlySpan {
	t.Helper()
	var found []sdktrace.ReadOnlySpan
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		found = found[:0]
		for _, s := range rec.Ended() {
			if s.Name() == name && s.SpanKind() == kind {
				found = append(found, s)
			}
		}
		if len(found) > 0 || time.Now().After(deadline) {
			break
		}
	}
	if len(found) != 1 {
		for _, s := range rec.Ended() {
			t.Logf("span %s (%s), parent %s", s.Name(), s.SpanKind(), s.Parent().SpanID())
		}
		t.Fatalf("%d %s spans named %s, want one", len(found), kind, name)
	}
	return found[0]
}

// childOf checks that child's parent is parent, in parent's trace.
func childOf(t *testing.T, child, parent sdktrace.ReadOnlySpan) {
	t.Helper()
	if child.Parent().SpanID() != parent.SpanContext().SpanID() || child.SpanContext().TraceID() != parent.SpanContext().TraceID() {
		t.Errorf("%s (%s) is not the child of %s (%s): its parent is %s in trace %s, want %s in trace %s",
			child.Name(), child.SpanKind(), parent.Name(), parent.SpanKind(),
			child.Parent().SpanID(), child.SpanContext().TraceID(), parent.SpanContext().SpanID(), parent.SpanContext().TraceID())
	}
}

// A store call carries the caller's trace context to the plugin: the
// client's span is the caller's child, the plugin's server span the
// client span's child (its parent came in the call's metadata), and the
// plugin's span for the store operation the server span's child.
func TestTraceContextCrossesStoreCalls(t *testing.T) {
	rec := traced(t)
	c := servedWithOptions(t, Extensions{Stores: []store.Registration{
		storeExtension("memory", func() store.Store { return store.NewMemory() }),
	}})
	s, err := c.Store(t.Context(), "memory", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Set(t.Context(), "k", []byte("value"), store.Condition{}); err != nil {
		t.Fatal(err)
	}
	ctx, request := otel.Tracer("test").Start(t.Context(), "request")
	v, err := s.Get(ctx, "k", store.ByteRange{})
	request.End()
	if err != nil || string(v.Data) != "value" {
		t.Fatalf("Get: %q, %v", v.Data, err)
	}
	req := spanNamed(t, rec, "request", trace.SpanKindInternal)
	client := spanNamed(t, rec, "zarrgw.v1.Store/Get", trace.SpanKindClient)
	server := spanNamed(t, rec, "zarrgw.v1.Store/Get", trace.SpanKindServer)
	var own sdktrace.ReadOnlySpan
	for _, sp := range rec.Ended() {
		// the plugin reads into its reply's buffer where its store can
		if (sp.Name() == "store.Get" || sp.Name() == "store.GetInto") && sp.Parent().SpanID() == server.SpanContext().SpanID() {
			own = sp
		}
	}
	childOf(t, client, req)
	childOf(t, server, client)
	if own == nil {
		t.Fatal("no store.Get or store.GetInto span below the plugin's server span")
	}
}

// A codec call, batched, joins its caller's trace too, and the plugin
// makes a span for the encode itself.
func TestTraceContextCrossesCodecCalls(t *testing.T) {
	rec := traced(t)
	c := servedWithOptions(t, Extensions{Codecs: []codec.Registration{codecExtension("test.frame", frame{})}})
	cd, err := c.Codec(t.Context(), "test.frame", nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, request := otel.Tracer("test").Start(t.Context(), "request")
	if _, err := cd.(codec.BytesBytes).EncodeBytes(ctx, codec.Spec{DataType: dtype.Named("uint8"), Shape: []int{3}, DecodedSize: 3}, []byte("abc")); err != nil {
		t.Fatal(err)
	}
	request.End()
	req := spanNamed(t, rec, "request", trace.SpanKindInternal)
	client := spanNamed(t, rec, "zarrgw.v1.Codec/Batch", trace.SpanKindClient)
	server := spanNamed(t, rec, "zarrgw.v1.Codec/Batch", trace.SpanKindServer)
	encode := spanNamed(t, rec, "codec.Encode", trace.SpanKindInternal)
	childOf(t, client, req)
	childOf(t, server, client)
	childOf(t, encode, server)
}

// A transformer in the plugin reaches the store below through the
// broker, whose connection both sides set up with the protocol's options:
// the plugin's call to the host's store is a client span, and the host's
// server span for it, the parent of the host store's own span, is its
// child.
func TestTraceContextCrossesTheBroker(t *testing.T) {
	rec := traced(t)
	c := inProcess(t, Extensions{Transformers: []transformer.Registration{subTransformer}})
	below := telemetry.Store(store.NewMemory(), "below")
	s, err := c.Transformer(t.Context(), "sub", nil, below)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Set(t.Context(), "k", []byte("v"), store.Condition{}); err != nil {
		t.Fatal(err)
	}
	rec.Reset()
	if _, err := s.Get(t.Context(), "k", store.ByteRange{}); err != nil {
		t.Fatal(err)
	}
	client := spanNamed(t, rec, "zarrgw.v1.Store/Get", trace.SpanKindClient) // the plugin's, to the host
	server := spanNamed(t, rec, "zarrgw.v1.Store/Get", trace.SpanKindServer) // the host's next store
	var hostStore sdktrace.ReadOnlySpan
	for _, sp := range rec.Ended() {
		if (sp.Name() == "store.Get" || sp.Name() == "store.GetInto") && sp.Parent().SpanID() == server.SpanContext().SpanID() {
			hostStore = sp
		}
	}
	childOf(t, server, client)
	if hostStore == nil {
		t.Fatal("the host store's span is not below the host's server span")
	}
}

// With tracing off, the protocol's options add no stats handler and the
// plugin wraps nothing.
func TestNoTracingOptionsWhenOff(t *testing.T) {
	if telemetry.Enabled() {
		t.Fatal("tracing on at the start of the test")
	}
	dial, serve := len(DialOptions()), len(ServerOptions())
	traced(t)
	if len(DialOptions()) != dial+1 || len(ServerOptions()) != serve+1 {
		t.Errorf("on: %d dial and %d server options, want one more of each than off (%d, %d)", len(DialOptions()), len(ServerOptions()), dial, serve)
	}
}
