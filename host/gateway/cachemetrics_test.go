package gateway_test

import (
	"net/http"
	"regexp"
	"strings"
	"testing"
)

// The counters of a dataset's cache transformer are published on
// /metrics: a value read twice is one miss, then one hit, and the memory
// tier holds it.
func TestCacheTransformerMetrics(t *testing.T) {
	tg := newGatewayOf(t, `
store "fs" "local" {
  root = "ROOT"
}
dataset "c" {
  store = store.fs.local
  transformer "cache" {
    memory = "1MiB"
  }
  access {
    read  = ["*"]
    write = ["*"]
  }
}
server {
  listen = "127.0.0.1:0"
}
`)
	tg.put(t, "/d/c/k", "value")
	for range 2 {
		if resp, body := tg.do(t, http.MethodGet, "/d/c/k", ""); resp.StatusCode != http.StatusOK || body != "value" {
			t.Fatalf("GET /d/c/k: %d %q", resp.StatusCode, body)
		}
	}
	_, page := tg.do(t, http.MethodGet, "/metrics", "")
	for series, want := range map[string]string{
		`zarrgw_store_cache_reads_total{dataset="c",result="miss"}`: "1",
		`zarrgw_store_cache_reads_total{dataset="c",result="hit"}`:  "",
		`zarrgw_store_cache_entries{dataset="c",tier="memory"}`:     "",
		`zarrgw_store_cache_max_bytes{dataset="c",tier="memory"}`:   "1.048576e+06",
	} {
		m := regexp.MustCompile(regexp.QuoteMeta(series) + ` (\S+)`).FindStringSubmatch(page)
		switch {
		case m == nil:
			t.Errorf("no %s on /metrics:\n%s", series, grepLines(page, "zarrgw_store_cache"))
		case want != "" && m[1] != want:
			t.Errorf("%s = %s, want %s", series, m[1], want)
		case want == "" && m[1] == "0":
			t.Errorf("%s = 0", series)
		}
	}
}

func grepLines(s, sub string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
