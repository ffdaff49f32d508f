// Package telemetry is the host's side of zarrgw's traces: Setup turns
// them on from the standard OTEL_* variables (they are off by default),
// StartRequest starts the span of a gateway request, and Store, Codecs,
// Transformers and ArrayOptions wrap the parts of a dataset's stack in
// spans, so a request's trace shows its transformers', stores' and
// codecs' calls nested below it, and, through the plugin protocol
// (pluginapi carries the trace context), the plugins' own spans.
//
// The machinery is pluginapi/telemetry's, which plugins use too; this
// package gives it the host's names. When traces are off nothing is
// wrapped: callers ask Enabled first, and StartRequest returns the
// request's context as it is.
package telemetry

import (
	"context"
	"log/slog"
	"net"
	"net/http"
	"strconv"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/zarrgw/zarrgw/core/array"
	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/meta"
	"github.com/zarrgw/zarrgw/core/store"
	ptel "github.com/zarrgw/zarrgw/pluginapi/telemetry"
)

// Setup reads the OTEL_* variables and, when they ask for traces, exports
// this process's spans over OTLP as serviceName (OTEL_SERVICE_NAME wins),
// with the main module's version. Traces are on when
// OTEL_TRACES_EXPORTER is "otlp" or an OTLP endpoint is set
// (OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT), and
// OTEL_SDK_DISABLED is not "true"; "none" turns them off. The protocol is
// OTEL_EXPORTER_OTLP_(TRACES_)PROTOCOL's, http/protobuf by default, or
// grpc. "console" and the other exporters of the specification are not in
// this build and are refused, as is every value that cannot be used, with
// an error naming the variable. The exporter reads the other
// OTEL_EXPORTER_OTLP_* variables, the SDK the sampler
// (OTEL_TRACES_SAMPLER, _ARG) and batching (OTEL_BSP_*).
//
// Call it before anything starts a plugin (plugins are started with the
// protocol's tracing options only when it is on), and call the returned
// shutdown once at the end with a bounded context: it sends the spans
// left. When traces are off it installs nothing and shutdown does
// nothing. Errors of the export in the background go to slog's default
// logger.
func Setup(ctx context.Context, serviceName string) (shutdown func(context.Context) error, err error) {
	return ptel.Setup(ctx, ptel.Options{
		ServiceName: serviceName,
		Errors:      func(err error) { slog.Warn("traces", "error", err) },
	})
}

// Enabled reports whether traces are on: wrap only then.
func Enabled() bool { return ptel.Enabled() }

// Store returns next with a span around each of its calls (see
// pluginapi/telemetry.Store for their names and attributes), layer naming
// the part of the stack: the store type or the transformer. It has the
// optional operations of next, and only those.
func Store(next store.Store, layer string) store.Store { return ptel.Store(next, layer) }

// Codecs returns r with each codec it resolves wrapped in spans: one per
// encode or decode call (see pluginapi/telemetry.Codec).
func Codecs(r codec.Resolver) codec.Resolver { return ptel.Resolver(r) }

// Transformers returns r with each storage transformer it builds (those
// array metadata names) wrapped by Store, its layer the transformer's
// name.
func Transformers(r array.TransformerResolver) array.TransformerResolver {
	return tracedTransformers{r}
}

type tracedTransformers struct{ r array.TransformerResolver }

func (t tracedTransformers) Transformer(ctx context.Context, ext meta.Extension, next store.Store, a *meta.ArrayMeta, path string) (store.Store, error) {
	s, err := t.r.Transformer(ctx, ext, next, a, path)
	if err != nil {
		return nil, err
	}
	return Store(s, ext.Name), nil
}

// ArrayOptions returns o with its codecs and storage transformers
// wrapped in spans (Codecs, Transformers).
func ArrayOptions(o array.Options) array.Options {
	if o.Codecs != nil {
		o.Codecs = Codecs(o.Codecs)
	}
	if o.Transformers != nil {
		o.Transformers = Transformers(o.Transformers)
	}
	return o
}

// StartRequest starts the server span of an HTTP request and returns the
// context carrying it, for the request's handler (r.WithContext). A
// traceparent header (and baggage) in the request continues the client's
// trace. The span is named after the method ("GET"; "HTTP" for a method
// HTTP does not define) until the gateway knows the operation (span.SetName("key:Get")); EndRequest ends it with the
// response's status. The query is not recorded: presigned URLs carry
// signatures in it.
//
// When traces are off it returns r's context and the no-op span in it,
// at the cost of a context lookup.
func StartRequest(r *http.Request) (context.Context, trace.Span) {
	ctx := r.Context()
	if !Enabled() {
		return ctx, trace.SpanFromContext(ctx)
	}
	ctx = otel.GetTextMapPropagator().Extract(ctx, propagation.HeaderCarrier(r.Header))
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	attrs := []attribute.KeyValue{
		semconv.HTTPRequestMethodKey.String(method(r.Method)),
		semconv.URLScheme(scheme),
		semconv.URLPath(r.URL.Path),
	}
	if host, port, err := net.SplitHostPort(r.Host); err == nil {
		attrs = append(attrs, semconv.ServerAddress(host))
		if p, err := strconv.Atoi(port); err == nil {
			attrs = append(attrs, semconv.ServerPort(p))
		}
	} else if r.Host != "" {
		attrs = append(attrs, semconv.ServerAddress(r.Host))
	}
	if host, _, err := net.SplitHostPort(r.RemoteAddr); err == nil {
		attrs = append(attrs, semconv.ClientAddress(host))
	}
	if ua := r.UserAgent(); ua != "" {
		attrs = append(attrs, semconv.UserAgentOriginal(ua))
	}
	name := method(r.Method)
	if name == "_OTHER" {
		name = "HTTP"
	}
	return otel.GetTracerProvider().Tracer(ptel.ScopeName).Start(ctx, name,
		trace.WithSpanKind(trace.SpanKindServer), trace.WithAttributes(attrs...))
}

// method is the method as http.request.method records it: one of HTTP's,
// or "_OTHER", so that a client cannot make up values.
func method(m string) string {
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodOptions, http.MethodConnect, http.MethodTrace:
		return m
	}
	return "_OTHER"
}

// EndRequest records the response's status on a request's span and ends
// it. A 5xx marks the span failed; a 4xx is the client's doing and, as
// the semantic conventions say of server spans, does not.
func EndRequest(span trace.Span, status int) {
	if !span.IsRecording() { // off, or not sampled: nothing to build
		span.End()
		return
	}
	span.SetAttributes(semconv.HTTPResponseStatusCode(status))
	if status >= 500 {
		span.SetStatus(codes.Error, http.StatusText(status))
	}
	span.End()
}
