package stack_test

import (
	"context"
	"encoding/json"
	"testing"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/propagation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/dtype"
	"github.com/zarrgw/zarrgw/core/store"
	ptel "github.com/zarrgw/zarrgw/pluginapi/telemetry"
)

// recorder is a tracer provider recording ended spans in memory.
func recorder(t *testing.T) (*sdktrace.TracerProvider, *tracetest.SpanRecorder) {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	t.Cleanup(func() { tp.Shutdown(context.Background()) })
	return tp, rec
}

func layerOf(s sdktrace.ReadOnlySpan) string {
	for _, a := range s.Attributes() {
		if a.Key == ptel.AttrStoreLayer {
			return a.Value.AsString()
		}
	}
	return ""
}

// With traces on, a read through a dataset's stack shows the
// transformer's call, the caller's child, and its store's calls below it,
// each naming its layer; and codecs resolved for arrays make a span per
// call.
func TestTracedStack(t *testing.T) {
	tp, rec := recorder(t)
	t.Cleanup(ptel.Enable(tp, propagation.TraceContext{}))
	ctx := context.Background()
	h := start(t, t.TempDir())
	ds, err := h.Dataset(ctx, "sharded")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ds.Store.Set(ctx, "t2m/c/3/1", []byte("value"), store.Condition{}); err != nil {
		t.Fatal(err)
	}
	rec.Reset()
	ctx, request := tp.Tracer("test").Start(ctx, "request")
	if _, err := ds.Store.Get(ctx, "t2m/c/3/1", store.ByteRange{}); err != nil {
		t.Fatal(err)
	}
	request.End()
	var top sdktrace.ReadOnlySpan
	below := 0
	for _, s := range rec.Ended() {
		if s.Parent().SpanID() == request.SpanContext().SpanID() {
			if top != nil {
				t.Fatalf("two spans below the request: %s and %s", top.Name(), s.Name())
			}
			top = s
		}
	}
	if top == nil || top.Name() != "store.Get" || layerOf(top) != "sharding" {
		t.Fatalf("the request's child is %v, want the sharding transformer's store.Get", top)
	}
	for _, s := range rec.Ended() {
		if s.Parent().SpanID() == top.SpanContext().SpanID() {
			below++
			if layerOf(s) != "fs" {
				t.Errorf("below the transformer: %s of layer %q, want the fs store's", s.Name(), layerOf(s))
			}
		}
	}
	if below == 0 {
		t.Error("no fs store call below the transformer's span")
	}

	rec.Reset()
	c, err := h.ArrayOptions().Codecs.Codec(ctx, "gzip", json.RawMessage(`{"level":1}`))
	if err != nil {
		t.Fatal(err)
	}
	spec := codec.Spec{DataType: dtype.Named("uint8"), Shape: []int{3}, DecodedSize: -1}
	if _, err := c.(codec.BytesBytes).EncodeBytes(ctx, spec, []byte("abc")); err != nil {
		t.Fatal(err)
	}
	if spans := rec.Ended(); len(spans) != 1 || spans[0].Name() != "codec.Encode" {
		t.Errorf("an encode through the array options made %d spans, want one codec.Encode", len(spans))
	}
}

// With traces off nothing is wrapped: even with a tracer provider
// installed, reads through a stack and codec calls make no span.
func TestUntracedStack(t *testing.T) {
	if ptel.Enabled() {
		t.Fatal("traces on at the start")
	}
	tp, rec := recorder(t)
	old := otel.GetTracerProvider()
	otel.SetTracerProvider(tp)
	t.Cleanup(func() { otel.SetTracerProvider(old) })
	ctx := context.Background()
	h := start(t, t.TempDir())
	ds, err := h.Dataset(ctx, "sharded")
	if err != nil {
		t.Fatal(err)
	}
	ds.Store.Set(ctx, "t2m/c/3/1", []byte("value"), store.Condition{})
	ds.Store.Get(ctx, "t2m/c/3/1", store.ByteRange{})
	c, err := h.ArrayOptions().Codecs.Codec(ctx, "gzip", json.RawMessage(`{"level":1}`))
	if err != nil {
		t.Fatal(err)
	}
	c.(codec.BytesBytes).EncodeBytes(ctx, codec.Spec{DataType: dtype.Named("uint8"), Shape: []int{3}, DecodedSize: -1}, []byte("abc"))
	if n := len(rec.Ended()); n != 0 {
		t.Errorf("%d spans with traces off", n)
	}
}
