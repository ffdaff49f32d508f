package servers

import (
	"compress/gzip"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	collectortrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

// OTLP is a trace receiver speaking OTLP/HTTP with protobuf bodies (POST
// /v1/traces, gzip if Content-Encoding says so), what zarrgw's exporter
// sends with OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf, the default. It
// keeps every span it receives.
type OTLP struct {
	// Endpoint is the base URL for OTEL_EXPORTER_OTLP_ENDPOINT,
	// http://127.0.0.1:PORT.
	Endpoint string

	mu       sync.Mutex
	spans    []Span
	requests int
	bad      []string      // requests it could not read
	arrived  chan struct{} // closed, and replaced, when spans arrive
}

// Span is one received span.
type Span struct {
	TraceID, SpanID string // hex
	ParentID        string // hex, "" for a root span
	Name            string
	// Service is the service.name of the resource it came with: which
	// process made it.
	Service string
	Kind    string // "SPAN_KIND_SERVER" ...
	// Attributes holds strings, int64s, float64s and bools; other values
	// as their protobuf text.
	Attributes map[string]any
	// Failed: its status is an error, with StatusMessage.
	Failed        bool
	StatusMessage string
	Start, End    time.Time
}

func (s Span) String() string {
	parent := s.ParentID
	if parent == "" {
		parent = "root"
	}
	return fmt.Sprintf("%s [%s] span %s (parent %s) in trace %s %v", s.Name, s.Service, s.SpanID, parent, s.TraceID, s.Attributes)
}

// StartOTLP starts a receiver on a free loopback port; it stops when the
// test ends.
func StartOTLP(t testing.TB) *OTLP {
	t.Helper()
	o := &OTLP{arrived: make(chan struct{})}
	srv := httptest.NewServer(o)
	t.Cleanup(srv.Close)
	o.Endpoint = srv.URL
	return o
}

// StartOTLPAt starts a receiver on addr (host:port), for the endpoint an
// exporter uses when none is set (127.0.0.1:4318); a port taken by
// another process makes the test Unavailable.
func StartOTLPAt(t testing.TB, addr string) *OTLP {
	t.Helper()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		Unavailable(t, "OTLP receiver on %s: %v", addr, err)
	}
	o := &OTLP{arrived: make(chan struct{}), Endpoint: "http://" + ln.Addr().String()}
	srv := &httptest.Server{Listener: ln, Config: &http.Server{Handler: o}}
	srv.Start()
	t.Cleanup(srv.Close)
	return o
}

// ServeHTTP receives one export.
func (o *OTLP) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/traces" {
		o.refuse(w, http.StatusNotFound, "%s %s", r.Method, r.URL.Path)
		return
	}
	if ct := r.Header.Get("Content-Type"); ct != "application/x-protobuf" {
		o.refuse(w, http.StatusUnsupportedMediaType, "Content-Type %q (this receiver reads protobuf only)", ct)
		return
	}
	var body io.Reader = r.Body
	switch enc := r.Header.Get("Content-Encoding"); enc {
	case "", "identity":
	case "gzip":
		zr, err := gzip.NewReader(r.Body)
		if err != nil {
			o.refuse(w, http.StatusBadRequest, "gzip: %v", err)
			return
		}
		body = zr
	default:
		o.refuse(w, http.StatusUnsupportedMediaType, "Content-Encoding %q", enc)
		return
	}
	data, err := io.ReadAll(body)
	if err != nil {
		o.refuse(w, http.StatusBadRequest, "body: %v", err)
		return
	}
	var req collectortrace.ExportTraceServiceRequest
	if err := proto.Unmarshal(data, &req); err != nil {
		o.refuse(w, http.StatusBadRequest, "protobuf: %v", err)
		return
	}
	var spans []Span
	for _, rs := range req.ResourceSpans {
		service := ""
		for _, a := range rs.GetResource().GetAttributes() {
			if a.Key == "service.name" {
				service = a.GetValue().GetStringValue()
			}
		}
		for _, ss := range rs.ScopeSpans {
			for _, s := range ss.Spans {
				spans = append(spans, Span{
					TraceID: hex.EncodeToString(s.TraceId), SpanID: hex.EncodeToString(s.SpanId),
					ParentID: hex.EncodeToString(s.ParentSpanId), Name: s.Name, Service: service,
					Kind: s.Kind.String(), Attributes: attributes(s.Attributes),
					Failed: s.GetStatus().GetCode() == tracepb.Status_STATUS_CODE_ERROR, StatusMessage: s.GetStatus().GetMessage(),
					Start: time.Unix(0, int64(s.StartTimeUnixNano)), End: time.Unix(0, int64(s.EndTimeUnixNano)),
				})
			}
		}
	}
	out, _ := proto.Marshal(&collectortrace.ExportTraceServiceResponse{})
	w.Header().Set("Content-Type", "application/x-protobuf")
	w.Write(out)
	o.mu.Lock()
	defer o.mu.Unlock()
	o.requests++
	o.spans = append(o.spans, spans...)
	close(o.arrived)
	o.arrived = make(chan struct{})
}

func (o *OTLP) refuse(w http.ResponseWriter, status int, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	o.mu.Lock()
	o.bad = append(o.bad, msg)
	o.mu.Unlock()
	http.Error(w, msg, status)
}

func attributes(kvs []*commonpb.KeyValue) map[string]any {
	m := make(map[string]any, len(kvs))
	for _, kv := range kvs {
		switch v := kv.GetValue().GetValue().(type) {
		case *commonpb.AnyValue_StringValue:
			m[kv.Key] = v.StringValue
		case *commonpb.AnyValue_IntValue:
			m[kv.Key] = v.IntValue
		case *commonpb.AnyValue_DoubleValue:
			m[kv.Key] = v.DoubleValue
		case *commonpb.AnyValue_BoolValue:
			m[kv.Key] = v.BoolValue
		default:
			m[kv.Key] = kv.GetValue().String()
		}
	}
	return m
}

// Spans returns every span received so far.
func (o *OTLP) Spans() []Span {
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([]Span(nil), o.spans...)
}

// Requests is how many exports it has received.
func (o *OTLP) Requests() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.requests
}

// Refused lists the requests the receiver could not read, each a reason.
func (o *OTLP) Refused() []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([]string(nil), o.bad...)
}

// WaitFor waits until found, given every span received so far, reports
// true, and returns those spans. It looks again each time spans arrive;
// the timeout bounds a wait for spans that never come, and then the test
// fails naming what, with the spans seen.
func (o *OTLP) WaitFor(t testing.TB, timeout time.Duration, what string, found func([]Span) bool) []Span {
	t.Helper()
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		o.mu.Lock()
		spans, arrived := append([]Span(nil), o.spans...), o.arrived
		o.mu.Unlock()
		if found(spans) {
			return spans
		}
		select {
		case <-arrived:
		case <-deadline.C:
			var b strings.Builder
			for _, s := range spans {
				fmt.Fprintf(&b, "\n  %s", s)
			}
			if bad := o.Refused(); len(bad) > 0 {
				fmt.Fprintf(&b, "\nrefused requests: %q", bad)
			}
			t.Fatalf("no %s within %v; %d spans received:%s", what, timeout, len(spans), b.String())
			return nil
		}
	}
}

// Trace returns the spans of spans in trace id.
func Trace(spans []Span, id string) []Span {
	var out []Span
	for _, s := range spans {
		if s.TraceID == id {
			out = append(out, s)
		}
	}
	return out
}

// Descends reports whether span d descends from span a (a child, or a
// child's descendant) among spans.
func Descends(spans []Span, d, a Span) bool {
	byID := map[string]Span{}
	for _, s := range spans {
		if s.TraceID == a.TraceID {
			byID[s.SpanID] = s
		}
	}
	if d.TraceID != a.TraceID {
		return false
	}
	for seen := 0; d.ParentID != "" && seen <= len(byID); seen++ {
		if d.ParentID == a.SpanID {
			return true
		}
		p, ok := byID[d.ParentID]
		if !ok {
			return false // a parent not received (yet)
		}
		d = p
	}
	return false
}
