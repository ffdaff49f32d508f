package telemetry

import (
	"fmt"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/propagation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

type spanView = sdktrace.ReadOnlySpan

// record turns tracing on for the test with an in-memory recorder of the
// spans that end, and turns it off after.
func record(t testing.TB) *tracetest.SpanRecorder {
	t.Helper()
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	restore := Enable(tp, propagation.TraceContext{})
	t.Cleanup(func() {
		restore()
		tp.Shutdown(t.Context())
	})
	return rec
}

// attr is the value of a span's attribute key.
func attr(s spanView, key string) (attribute.Value, bool) {
	for _, a := range s.Attributes() {
		if string(a.Key) == key {
			return a.Value, true
		}
	}
	return attribute.Value{}, false
}

// describe shows a span in a failure message.
func describe(s spanView) string {
	if s == nil {
		return "none"
	}
	return fmt.Sprintf("%s (status %v %q, attributes %v)", s.Name(), s.Status().Code, s.Status().Description, s.Attributes())
}
