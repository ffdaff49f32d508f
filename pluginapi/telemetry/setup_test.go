package telemetry

import (
	"context"
	"go.opentelemetry.io/otel/attribute"
	"net"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"
	collectortrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/grpc"

	"github.com/zarrgw/zarrgw/tests/support/servers"
)

// clearOTEL empties every OTEL_* variable for the test (an empty variable
// counts as unset), so the machine's own cannot steer it.
func clearOTEL(t *testing.T) {
	t.Helper()
	for _, kv := range os.Environ() {
		if name, _, _ := strings.Cut(kv, "="); strings.HasPrefix(name, "OTEL_") {
			t.Setenv(name, "")
		}
	}
}

// With no OTEL_* variable, Setup installs nothing: no provider, no
// propagator, no gRPC handlers, and its shutdown does nothing.
func TestSetupOff(t *testing.T) {
	clearOTEL(t)
	// sentinels, since earlier tests leave the global delegates behind
	tp, p := noop.NewTracerProvider(), &sentinelPropagator{}
	restore := Enable(tp, p)
	enabled.Store(false)
	t.Cleanup(restore)
	shutdown, err := Setup(t.Context(), Options{ServiceName: "test"})
	if err != nil {
		t.Fatal(err)
	}
	if Enabled() {
		t.Error("enabled with no OTEL_* variable")
	}
	if got := otel.GetTracerProvider(); got != trace.TracerProvider(tp) {
		t.Errorf("a tracer provider was installed: %T", got)
	}
	if got, ok := otel.GetTextMapPropagator().(*sentinelPropagator); !ok || got != p {
		t.Errorf("a propagator was installed: %T", otel.GetTextMapPropagator())
	}
	if n := len(DialOptions()) + len(ServerOptions()); n != 0 {
		t.Errorf("%d gRPC options when off", n)
	}
	if err := shutdown(t.Context()); err != nil {
		t.Error(err)
	}
}

type sentinelPropagator struct{ propagation.TraceContext }

// A bad variable is Setup's error, naming it, and nothing is installed.
func TestSetupRefuses(t *testing.T) {
	clearOTEL(t)
	for name, value := range map[string]string{
		"OTEL_TRACES_SAMPLER":      "sometimes",
		"OTEL_RESOURCE_ATTRIBUTES": "deployment.environment",
	} {
		t.Run(name, func(t *testing.T) {
			t.Setenv("OTEL_TRACES_EXPORTER", "otlp")
			t.Setenv(name, value)
			if _, err := Setup(t.Context(), Options{ServiceName: "test"}); err == nil || !strings.Contains(err.Error(), name) {
				t.Errorf("Setup: %v, want an error naming %s", err, name)
			}
			if Enabled() {
				t.Error("enabled after an error")
			}
		})
	}
}

// With an endpoint, spans reach it over OTLP/HTTP, named for the service
// Setup was given unless OTEL_SERVICE_NAME says otherwise, and the
// shutdown sends what the batch still holds.
func TestSetupExportsOverHTTP(t *testing.T) {
	for _, c := range []struct{ env, want string }{{"", "from-options"}, {"from-env", "from-env"}} {
		t.Run(c.want, func(t *testing.T) {
			clearOTEL(t)
			recv := servers.StartOTLP(t)
			t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", recv.Endpoint)
			t.Setenv("OTEL_BSP_SCHEDULE_DELAY", "3600000") // only the shutdown sends
			t.Setenv("OTEL_SERVICE_NAME", c.env)
			shutdown, err := Setup(t.Context(), Options{ServiceName: "from-options"})
			if err != nil {
				t.Fatal(err)
			}
			if !Enabled() || len(DialOptions()) == 0 || len(ServerOptions()) == 0 {
				t.Errorf("on: enabled %v, %d dial options, %d server options", Enabled(), len(DialOptions()), len(ServerOptions()))
			}
			_, span := tracer().Start(t.Context(), "work")
			span.End()
			if err := shutdown(t.Context()); err != nil {
				t.Fatal(err)
			}
			if Enabled() {
				t.Error("still enabled after the shutdown")
			}
			spans := recv.Spans()
			if len(spans) != 1 || spans[0].Name != "work" || spans[0].Service != c.want {
				t.Errorf("received %v, want the span work of %s", spans, c.want)
			}
		})
	}
}

// OTEL_EXPORTER_OTLP_PROTOCOL=grpc exports over gRPC.
func TestSetupExportsOverGRPC(t *testing.T) {
	clearOTEL(t)
	col := &collector{}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer()
	collectortrace.RegisterTraceServiceServer(srv, col)
	go srv.Serve(ln)
	t.Cleanup(srv.Stop)
	t.Setenv("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc")
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://"+ln.Addr().String())
	shutdown, err := Setup(t.Context(), Options{ServiceName: "test"})
	if err != nil {
		t.Fatal(err)
	}
	_, span := tracer().Start(t.Context(), "work")
	span.End()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	if err := shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	if got := col.names(); len(got) != 1 || got[0] != "work" {
		t.Errorf("the gRPC collector received %v", got)
	}
}

// collector is an OTLP/gRPC trace receiver keeping span names.
type collector struct {
	collectortrace.UnimplementedTraceServiceServer
	mu    sync.Mutex
	spans []string
}

func (c *collector) Export(_ context.Context, req *collectortrace.ExportTraceServiceRequest) (*collectortrace.ExportTraceServiceResponse, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, rs := range req.ResourceSpans {
		for _, ss := range rs.ScopeSpans {
			for _, s := range ss.Spans {
				c.spans = append(c.spans, s.Name)
			}
		}
	}
	return &collectortrace.ExportTraceServiceResponse{}, nil
}

func (c *collector) names() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.spans...)
}

// Attribute values, which requests choose (paths, user agents), are cut
// at 1 KiB unless the OTEL_* span limits say otherwise.
func TestSetupBoundsAttributeValues(t *testing.T) {
	for _, c := range []struct {
		limit string
		want  int
	}{{"", 1024}, {"100", 100}} {
		clearOTEL(t)
		recv := servers.StartOTLP(t)
		t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", recv.Endpoint)
		t.Setenv("OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT", c.limit)
		shutdown, err := Setup(t.Context(), Options{ServiceName: "test"})
		if err != nil {
			t.Fatal(err)
		}
		_, span := tracer().Start(t.Context(), "work")
		span.SetAttributes(attribute.String("long", strings.Repeat("x", 64<<10)))
		span.End()
		if err := shutdown(t.Context()); err != nil {
			t.Fatal(err)
		}
		spans := recv.Spans()
		if len(spans) != 1 {
			t.Fatalf("limit %q: %d spans received", c.limit, len(spans))
		}
		if got, _ := spans[0].Attributes["long"].(string); len(got) != c.want {
			t.Errorf("limit %q: a 64 KiB attribute arrived as %d bytes, want %d", c.limit, len(got), c.want)
		}
	}
}
