package launcher

import (
	"log/slog"
	"strings"
	"testing"
	"time"
)

// The first restart after a failure is immediate, later ones back off,
// doubling up to the maximum.
func TestBackoff(t *testing.T) {
	l := New(Options{RestartDelay: 100 * time.Millisecond, MaxRestartDelay: time.Second})
	p := newPlugin(l, Spec{Name: "p"})
	want := []time.Duration{0, 100, 200, 400, 800, 1000, 1000}
	for i, w := range want {
		// the wait starts at a moment between these two readings
		before := time.Now()
		p.failed()
		after := time.Now()
		w *= time.Millisecond
		if p.notBefore.Before(before.Add(w)) || p.notBefore.After(after.Add(w)) {
			t.Errorf("failure %d: wait %v, want %v", i+1, p.notBefore.Sub(before), w)
		}
	}
}

func TestAddRefusesBadSpecs(t *testing.T) {
	l := New(Options{})
	sum := strings.Repeat("0", 64)
	for _, s := range []Spec{
		{Path: "/bin/p", SHA256: sum},
		{Name: "p", SHA256: sum},
		{Name: "p", Path: "/bin/p"},
		{Name: "p", Path: "/bin/p", SHA256: "abc"},
		{Name: "p", Path: "/bin/p", SHA256: strings.Repeat("g", 64)},
	} {
		if _, err := l.Add(s); err == nil {
			t.Errorf("added %+v", s)
		}
	}
	if _, err := l.Add(Spec{Name: "p", Path: "/bin/p", SHA256: sum}); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Add(Spec{Name: "p", Path: "/bin/q", SHA256: sum}); err == nil {
		t.Error("two plugins under one name")
	}
	l.Close()
	if _, err := l.Add(Spec{Name: "q", Path: "/bin/q", SHA256: sum}); err == nil {
		t.Error("added to a closed launcher")
	}
}

// Lines written by a plugin after its handshake become log records, one
// per line, however the writes split them.
func TestLineWriter(t *testing.T) {
	var got []string
	w := &lineWriter{log: func(s string) { got = append(got, s) }}
	for _, part := range []string{"one\ntw", "o\r\n", "\nthree", "\n"} {
		w.Write([]byte(part))
	}
	if strings.Join(got, "|") != "one|two|three" {
		t.Fatalf("lines %q", got)
	}
}

func TestLevelName(t *testing.T) {
	l := slog.New(slog.NewTextHandler(nil, &slog.HandlerOptions{Level: slog.LevelWarn}))
	if got := levelName(l); got != "warn" {
		t.Errorf("level %s", got)
	}
}

// A panic's lines, as go-plugin forwards them, become one report naming
// the call and the function that panicked; a line with attributes ends it,
// and lines before a panic pass through.
func TestPanicReport(t *testing.T) {
	stack := []string{
		"panic: boom [recovered, repanicked]",
		"",
		"goroutine 26 [running]:",
		"sync.(*WaitGroup).Go.func1.1()",
		"\t/usr/local/go/src/sync/waitgroup.go:251 +0x45",
		"panic({0xa8f8e0?, 0xbffb20?})",
		"\t/usr/local/go/src/runtime/panic.go:860 +0x13a",
		"example.com/xor.(*Codec).DecodeBytes(0x1, {0x2, 0x3})",
		"\t/src/xor/xor.go:66 +0x150",
		"github.com/zarrgw/zarrgw/pluginapi.(*codecService).run(0x41ec33?)",
		"\t/src/pluginapi/server_codec.go:180 +0x27f",
		"github.com/zarrgw/zarrgw/pluginapi.(*codecService).Batch.func1()",
		"\t/src/pluginapi/server_codec.go:91 +0xb5",
		"created by sync.(*WaitGroup).Go in goroutine 25",
		"",
		"goroutine 1 [select]:",
		"github.com/zarrgw/zarrgw/pluginapi.(*storeService).Get(0x1)",
	}
	var reports [][]any
	r := &panicReport{emit: func(msg string, attrs []any) { reports = append(reports, append([]any{msg}, attrs...)) }}
	if r.take("an ordinary line") {
		t.Fatal("a line outside a panic was taken")
	}
	for _, l := range stack {
		if !r.take(l) {
			t.Fatalf("line %q of the panic was not taken", l)
		}
	}
	if len(reports) != 0 {
		t.Fatal("reported before the panic ended")
	}
	r.flush() // as a line with attributes ("plugin process exited") does
	if len(reports) != 1 {
		t.Fatalf("%d reports", len(reports))
	}
	got := map[string]any{}
	for i := 1; i+1 < len(reports[0]); i += 2 {
		got[reports[0][i].(string)] = reports[0][i+1]
	}
	if got["call"] != "Codec/Batch" || got["function"] != "example.com/xor.(*Codec).DecodeBytes" || got["panic"] != "boom [recovered, repanicked]" ||
		got["stack"] != strings.Join(stack, "\n") {
		t.Errorf("report %v", got)
	}
	if r.take("a line after the report") {
		t.Error("a line after the report was taken")
	}
}
