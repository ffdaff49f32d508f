package server_test

import (
	"reflect"
	"testing"
	"time"

	"github.com/zarrgw/zarrgw/host/runtime/config/server"
)

// Without a server block, or with one that names none of them, the
// safeguards keep their defaults; metrics are for loopback clients (nil).
func TestSafeguardDefaults(t *testing.T) {
	want := server.Safeguards{
		ExpensiveRequests: 4, ExpensiveMemory: 512 << 20, ExpensiveWait: 2 * time.Second,
		BodyReadTimeout: time.Minute, MinUploadRate: 16 << 10, BodyMemory: 512 << 20,
	}
	for _, src := range []string{"", "server {\n  listen = \":80\"\n}"} {
		got := mustParse(t, src).Safeguards
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%q: got %+v, want %+v", src, got, want)
		}
	}
}

// serverWith is a configuration whose server block holds body, with a
// principal "ops" to name.
func serverWith(body string) string {
	return `principal "ops" {
  token_sha256 = "d6d21e6d4a9c969670e67b5ea4b746242a23ad9ec2e8eb78c8d36f577f00581e"
}
server {
  listen = ":80"
` + body + `
}`
}

func TestExpensiveRequestBounds(t *testing.T) {
	s := mustParse(t, serverWith(`expensive_requests = 8
  expensive_memory = "1GiB"
  expensive_wait = "500ms"`))
	if s.ExpensiveRequests != 8 || s.ExpensiveMemory != 1<<30 || s.ExpensiveWait != 500*time.Millisecond {
		t.Errorf("got %+v", s.Safeguards)
	}
	s = mustParse(t, serverWith(`expensive_requests = 0
  expensive_memory = 0
  expensive_wait = "0s"`))
	if s.ExpensiveRequests != 0 || s.ExpensiveMemory != 0 || s.ExpensiveWait != 0 {
		t.Errorf("off: got %+v", s.Safeguards)
	}
}

func TestBodyReadTimeout(t *testing.T) {
	s := mustParse(t, serverWith(`body_read_timeout = "90s"`))
	if s.BodyReadTimeout != 90*time.Second {
		t.Errorf("got %v", s.BodyReadTimeout)
	}
	if s = mustParse(t, serverWith(`body_read_timeout = "0s"`)); s.BodyReadTimeout != 0 {
		t.Errorf("0s: got %v", s.BodyReadTimeout)
	}
}

func TestMinUploadRate(t *testing.T) {
	for src, want := range map[string]int64{
		`"32KiB"`: 32 << 10, `"32KiB/s"`: 32 << 10, `"1MB/s"`: 1e6, `4096`: 4096, `"0"`: 0, `0`: 0,
	} {
		s := mustParse(t, serverWith(`min_upload_rate = `+src))
		if s.MinUploadRate != want {
			t.Errorf("%s: got %d, want %d", src, s.MinUploadRate, want)
		}
	}
}

func TestBodyMemory(t *testing.T) {
	for src, want := range map[string]int64{`"64MiB"`: 64 << 20, `"2GiB"`: 2 << 30, `0`: 0, `"0"`: 0} {
		s := mustParse(t, serverWith(`body_memory = `+src))
		if s.BodyMemory != want {
			t.Errorf("%s: got %d, want %d", src, s.BodyMemory, want)
		}
	}
}

func TestMetricsAccess(t *testing.T) {
	s := mustParse(t, serverWith(`metrics {
    read = ["ops", "*"]
  }`))
	if s.Metrics == nil || !reflect.DeepEqual(s.Metrics.Read, []string{"ops", "*"}) || s.Metrics.Write != nil {
		t.Errorf("got %+v", s.Metrics)
	}
	// an empty list is nobody, which differs from no block (loopback only)
	s = mustParse(t, serverWith(`metrics {
    read = []
  }`))
	if s.Metrics == nil || s.Metrics.Read == nil || len(s.Metrics.Read) != 0 {
		t.Errorf("read = []: got %+v", s.Metrics)
	}
}

// Each bad value is one error on its line (line 6: the attribute after
// listen; metrics blocks start there too), naming it.
func TestSafeguardErrors(t *testing.T) {
	cases := []struct {
		name, body string
		line       int
		want       []string
	}{
		{"negative expensive_requests", `expensive_requests = -1`, 6, []string{"Invalid expensive_requests"}},
		{"fractional expensive_requests", `expensive_requests = 1.5`, 6, []string{"Invalid expensive_requests"}},
		{"expensive_memory too small", `expensive_memory = "1MiB"`, 6, []string{"Invalid expensive_memory", "16MiB"}},
		{"expensive_memory not a size", `expensive_memory = "lots"`, 6, []string{"Invalid expensive_memory", "0 turns it off"}},
		{"expensive_wait too long", `expensive_wait = "2h"`, 6, []string{"Invalid expensive_wait", `"2h"`}},
		{"expensive_wait negative", `expensive_wait = "-1s"`, 6, []string{"Invalid expensive_wait"}},
		{"body_read_timeout not a duration", `body_read_timeout = "soon"`, 6, []string{"Invalid body_read_timeout", `"soon"`}},
		{"body_memory too small", `body_memory = "1MiB"`, 6, []string{"Invalid body_memory", "16MiB"}},
		{"body_memory not a size", `body_memory = "plenty"`, 6, []string{"Invalid body_memory", "0 turns it off"}},
		{"min_upload_rate not a rate", `min_upload_rate = "fast"`, 6, []string{"Invalid min_upload_rate", "16KiB/s"}},
		{"metrics names an unknown principal", "metrics {\n    read = [\"opps\"]\n  }", 6, []string{"Unknown principal", `"opps"`, `Did you mean "ops"?`}},
		{"metrics with write", "metrics {\n    write = [\"ops\"]\n  }", 6, []string{"Write access to metrics"}},
		{"two metrics blocks", "metrics {\n  }\n  metrics {\n  }", 8, []string{"Duplicate metrics block"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, p, diags := parse(t, serverWith(c.body))
			wantOneError(t, p, diags, c.line, c.want...)
		})
	}
}
