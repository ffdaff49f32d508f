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
		p.failed()
		got := time.Until(p.notBefore).Round(10 * time.Millisecond)
		if got != w*time.Millisecond {
			t.Errorf("failure %d: wait %v, want %v", i+1, got, w*time.Millisecond)
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
