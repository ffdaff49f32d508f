package accesslog

import (
	"bytes"
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/zarrgw/zarrgw/host/serve/identity"
)

// The gateway's own access-log encoder writes, byte for byte, what slog's
// JSON handler writes for the same record: one format in the log whichever
// wrote it, strings with quotes, control characters, invalid UTF-8, line
// separators and HTML characters included.
func TestAccessLineIsSlogJSON(t *testing.T) {
	tricky := []string{"", "plain", `a"b\c`, "\x00\x01\x1f\n\r\t\x7f", "\xff\xfe\xc3", "x\u2028y\u2029z", "<b>&amp;</b>",
		"ünïcödé 雪 🧊", "/d/ds/a%2Fb/c/0"}
	durations := []time.Duration{0, 999 * time.Nanosecond, time.Microsecond, 50 * time.Microsecond, 1234567 * time.Microsecond,
		90 * time.Minute, 1e6 * time.Hour}
	callers := []identity.Caller{{}, {Method: identity.Anonymous},
		{Principals: []string{"analysts", "readers"}, Method: identity.JWT, Subject: "user\n1", Provider: "corp"},
		{Principals: []string{"bench"}, Method: identity.SigV4}}
	now := time.Date(2026, 11, 28, 15, 4, 5, 123456789, time.UTC)
	n := 0
	for i, s := range tricky {
		for j, d := range durations {
			e := Entry{Op: "key:Get", Method: "GET", Path: s, Status: 200 + i, Out: int64(j) << 40, In: int64(i % 3),
				Took: d, Remote: s + ":1", Caller: callers[(i+j)%len(callers)], Level: slog.LevelInfo}
			if j%2 == 0 {
				e.Dataset, e.Key = "ds"+s, s
			}
			if i%3 == 1 {
				e.Err, e.Level = "failed: "+s, slog.LevelWarn
			}
			var want bytes.Buffer
			rec := slog.NewRecord(now, e.Level, "request", 0)
			rec.AddAttrs(e.Attrs()...)
			if err := slog.NewJSONHandler(&want, nil).Handle(context.Background(), rec); err != nil {
				t.Fatal(err)
			}
			if got := e.AppendJSON(nil, now); !bytes.Equal(got, want.Bytes()) {
				t.Errorf("entry %d/%d:\n got %s\nwant %s", i, j, got, want.Bytes())
			}
			n++
		}
	}
	if n == 0 {
		t.Fatal("no entries compared")
	}
}
