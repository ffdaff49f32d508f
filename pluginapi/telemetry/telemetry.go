// Package telemetry traces zarrgw's work with OpenTelemetry, on both sides
// of the plugin protocol: Setup turns traces on from the standard OTEL_*
// variables (they are off when none asks for them), Store and Codec wrap
// the engine's interfaces in spans, and DialOptions and ServerOptions
// carry the W3C trace context in the metadata of the protocol's gRPC
// calls, so that a plugin's spans join the trace of the request that
// called it.
//
// The host (host/internal/telemetry) and the plugin SDK (pluginapi.Serve) both set
// up through here; it imports core and OpenTelemetry, nothing of zarrgw's
// host.
//
// When tracing is off nothing here is installed: callers ask Enabled
// before wrapping, the gRPC options are empty, and the global
// OpenTelemetry providers stay the API's no-ops.
package telemetry

import (
	"context"
	"fmt"
	"os"
	"runtime/debug"
	"strings"
	"sync/atomic"

	"go.opentelemetry.io/contrib/instrumentation/google.golang.org/grpc/otelgrpc"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"
	"google.golang.org/grpc"
	"google.golang.org/grpc/stats"
)

// ScopeName is the instrumentation scope of zarrgw's own spans.
const ScopeName = "github.com/zarrgw/zarrgw"

// enabled is set while a tracer provider of Setup's or Enable's is
// installed.
var enabled atomic.Bool

// Enabled reports whether spans are being made: wrappers and gRPC
// handlers are installed only then.
func Enabled() bool { return enabled.Load() }

// Options name the process in its spans.
type Options struct {
	// ServiceName is service.name unless OTEL_SERVICE_NAME (or service.name
	// in OTEL_RESOURCE_ATTRIBUTES) says otherwise.
	ServiceName string
	// ServiceVersion is service.version; empty takes the main module's
	// version from the build information.
	ServiceVersion string
	// Errors receives what goes wrong in the background (an export a
	// collector refused); nil leaves OpenTelemetry's default, a line on
	// stderr.
	Errors func(error)
}

// Setup reads the OTEL_* variables (FromEnv) and, when they ask for
// traces, installs a tracer provider exporting over OTLP in batches, the
// propagators OTEL_PROPAGATORS names (W3C tracecontext and baggage by
// default), and o's resource. It returns the function that flushes what
// is left and stops the exporter, to be called once at the end of the
// process with a bounded context; when traces are off that function does
// nothing and nothing was installed. A variable it cannot use is an error
// naming it.
//
// The exporter reads its own variables (endpoint, headers, timeout,
// compression, certificates) and the SDK its sampler
// (OTEL_TRACES_SAMPLER, OTEL_TRACES_SAMPLER_ARG), batching (OTEL_BSP_*)
// and limits.
func Setup(ctx context.Context, o Options) (shutdown func(context.Context) error, err error) {
	cfg, err := FromEnv(os.Getenv)
	if err != nil {
		return nil, err
	}
	if !cfg.Enabled {
		return func(context.Context) error { return nil }, nil
	}
	var exp sdktrace.SpanExporter
	if cfg.Protocol == ProtocolGRPC {
		var opts []otlptracegrpc.Option
		if cfg.DefaultEndpoint {
			opts = append(opts, otlptracegrpc.WithInsecure())
		}
		exp, err = otlptracegrpc.New(ctx, opts...)
	} else {
		var opts []otlptracehttp.Option
		if cfg.DefaultEndpoint {
			opts = append(opts, otlptracehttp.WithInsecure())
		}
		exp, err = otlptracehttp.New(ctx, opts...)
	}
	if err != nil {
		return nil, fmt.Errorf("OTLP trace exporter (%s): %w", cfg.Protocol, err)
	}
	version := o.ServiceVersion
	if version == "" {
		version = mainVersion()
	}
	// Later options win: OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES
	// over the name given here.
	res, err := resource.New(ctx,
		resource.WithSchemaURL(semconv.SchemaURL),
		resource.WithAttributes(semconv.ServiceName(o.ServiceName), semconv.ServiceVersion(version)),
		resource.WithTelemetrySDK(),
		resource.WithFromEnv(),
	)
	if err != nil {
		exp.Shutdown(ctx)
		return nil, fmt.Errorf("OTEL_RESOURCE_ATTRIBUTES: %w", err)
	}
	if o.Errors != nil {
		otel.SetErrorHandler(otel.ErrorHandlerFunc(o.Errors))
	}
	// Attribute values come from requests (paths, user agents): each is
	// cut at 1 KiB unless OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT or
	// OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT says otherwise.
	limits := sdktrace.NewSpanLimits()
	if limits.AttributeValueLengthLimit < 0 {
		limits.AttributeValueLengthLimit = 1024
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res), sdktrace.WithRawSpanLimits(limits))
	restore := Enable(tp, propagators(cfg.Propagators))
	return func(ctx context.Context) error {
		restore()
		if err := tp.Shutdown(ctx); err != nil {
			return fmt.Errorf("traces: flush at exit: %w", err)
		}
		return nil
	}, nil
}

func propagators(names []string) propagation.TextMapPropagator {
	var ps []propagation.TextMapPropagator
	for _, n := range names {
		switch n {
		case "tracecontext":
			ps = append(ps, propagation.TraceContext{})
		case "baggage":
			ps = append(ps, propagation.Baggage{})
		}
	}
	return propagation.NewCompositeTextMapPropagator(ps...)
}

// Enable installs tp and p as the global tracer provider and propagator
// and turns Enabled on, as Setup does with the provider it builds: for a
// program that builds its own provider, and for tests that record spans
// in memory. restore puts back what was installed before.
func Enable(tp trace.TracerProvider, p propagation.TextMapPropagator) (restore func()) {
	oldTP, oldP, was := otel.GetTracerProvider(), otel.GetTextMapPropagator(), enabled.Load()
	otel.SetTracerProvider(tp)
	otel.SetTextMapPropagator(p)
	enabled.Store(true)
	return func() {
		enabled.Store(was)
		otel.SetTracerProvider(oldTP)
		otel.SetTextMapPropagator(oldP)
	}
}

// mainVersion is the main module's version, "devel" for a build from a
// checkout.
func mainVersion() string {
	if info, ok := debug.ReadBuildInfo(); ok && info.Main.Version != "" && info.Main.Version != "(devel)" {
		return strings.TrimPrefix(info.Main.Version, "v")
	}
	return "devel"
}

// tracer is zarrgw's tracer from the provider installed now.
func tracer() trace.Tracer { return otel.GetTracerProvider().Tracer(ScopeName) }

// rpcPrefix starts the methods of zarrgw's protocol; go-plugin's own
// services on the same connection (its broker and stdio streams, which
// last as long as the plugin, the controller, health checks) are left
// out of traces.
const rpcPrefix = "/zarrgw."

func protocolOnly(info *stats.RPCTagInfo) bool {
	return strings.HasPrefix(info.FullMethodName, rpcPrefix)
}

// DialOptions are what a client of the plugin protocol adds to its gRPC
// options: a span per call, and the trace context sent in its metadata.
// Empty when tracing is off.
func DialOptions() []grpc.DialOption {
	if !Enabled() {
		return nil
	}
	return []grpc.DialOption{grpc.WithStatsHandler(otelgrpc.NewClientHandler(otelgrpc.WithFilter(protocolOnly)))}
}

// ServerOptions are what a server of the plugin protocol adds: a span per
// call, the child of the caller's span whose context came in the call's
// metadata. Empty when tracing is off.
func ServerOptions() []grpc.ServerOption {
	if !Enabled() {
		return nil
	}
	return []grpc.ServerOption{grpc.StatsHandler(otelgrpc.NewServerHandler(otelgrpc.WithFilter(protocolOnly)))}
}

// errorStatus marks span failed with err. ErrNotFound and the like are
// answers, not failures: callers leave them out.
func errorStatus(span trace.Span, err error) {
	span.RecordError(err)
	span.SetStatus(codes.Error, err.Error())
}

// Flush sends the spans ended so far, when a provider of Setup's (or any
// with a ForceFlush) is installed: before a signal ends the process.
func Flush(ctx context.Context) error {
	if f, ok := otel.GetTracerProvider().(interface{ ForceFlush(context.Context) error }); ok {
		return f.ForceFlush(ctx)
	}
	return nil
}
